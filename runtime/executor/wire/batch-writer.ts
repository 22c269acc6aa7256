// Collects the lines written during one turn of the event loop and sends them as one write,
// which is what keeps the per-invocation syscall and wake-up cost low under load. Handles
// partial writes (large payloads) by keeping the unwritten bytes until the socket drains.

export interface ByteSink {
  /** Returns the number of bytes accepted (Bun's socket.write contract). */
  write(data: string | Uint8Array): number;
}

export class BatchWriter {
  private lines: string[] = [];
  private scheduled = false;
  private backlog: Uint8Array[] = [];
  private closed = false;

  constructor(private readonly sink: ByteSink) {}

  /** Queues one or more '\n'-joined lines (without a trailing newline). */
  write(lines: string): void {
    if (this.closed) return;
    this.lines.push(lines);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Call from the socket's drain handler. */
  drain(): void {
    while (this.backlog.length > 0 && !this.closed) {
      const head = this.backlog[0]!;
      const n = this.sink.write(head);
      if (n < 0) return this.close();
      if (n < head.length) {
        this.backlog[0] = head.subarray(n);
        return;
      }
      this.backlog.shift();
    }
  }

  close(): void {
    this.closed = true;
    this.lines = [];
    this.backlog = [];
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.closed || this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] + '\n' : this.lines.join('\n') + '\n';
    this.lines = [];
    if (this.backlog.length > 0) {
      this.backlog.push(Buffer.from(text));
      return;
    }
    const n = this.sink.write(text);
    if (n < 0) return this.close();
    // UTF-8 takes at least one byte per UTF-16 unit, so the byte length is only needed when the
    // count could still be short of it.
    if (n < text.length || n < Buffer.byteLength(text)) this.backlog.push(Buffer.from(text).subarray(Math.max(0, n)));
  };
}
