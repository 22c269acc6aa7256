// A FIFO async mutex: serialises critical sections that span awaits.

export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every earlier holder has finished; errors propagate to the caller only. */
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
