// The two libc calls the syscall filter needs (./syscall-filter.ts), through the runtime's foreign
// function interface: bun:ffi on Bun, Deno.dlopen on Deno (loaded only on its own runtime). Only the
// host itself calls them, before any component code runs; component Workers on Deno have no ffi
// permission.

export interface Libc {
  prctl(option: number, a: number, b: number, c: number, d: number): number;
  /** syscall(nr, a, b, &bytes) */
  syscall(nr: number, a: number, b: number, bytes: Uint8Array): number | bigint;
  /** The address of `bytes`, to store inside a structure the kernel reads. */
  address(bytes: Uint8Array): bigint;
  close(): void;
}

interface DenoFfi {
  dlopen(
    path: string,
    symbols: Record<string, { parameters: string[]; result: string }>,
  ): { symbols: Record<string, (...args: unknown[]) => number | bigint>; close(): void };
  UnsafePointer: { of(bytes: Uint8Array): unknown; value(pointer: unknown): bigint | number };
}

export async function openLibc(): Promise<Libc> {
  if ('Deno' in globalThis) {
    const ffi = (globalThis as unknown as { Deno: DenoFfi }).Deno;
    const lib = ffi.dlopen('libc.so.6', {
      prctl: { parameters: ['i32', 'u64', 'u64', 'u64', 'u64'], result: 'i32' },
      syscall: { parameters: ['i64', 'i64', 'i64', 'pointer'], result: 'i64' },
    });
    return {
      prctl: (option, a, b, c, d) => Number(lib.symbols.prctl!(option, BigInt(a), BigInt(b), BigInt(c), BigInt(d))),
      syscall: (nr, a, b, bytes) => lib.symbols.syscall!(BigInt(nr), BigInt(a), BigInt(b), ffi.UnsafePointer.of(bytes)),
      address: (bytes) => BigInt(ffi.UnsafePointer.value(ffi.UnsafePointer.of(bytes))),
      close: () => lib.close(),
    };
  }
  const { dlopen, ptr } = await import('bun:ffi');
  const lib = dlopen('libc.so.6', {
    prctl: { args: ['i32', 'u64', 'u64', 'u64', 'u64'], returns: 'i32' },
    syscall: { args: ['i64', 'i64', 'i64', 'ptr'], returns: 'i64' },
  });
  return {
    prctl: (option, a, b, c, d) => lib.symbols.prctl(option, a, b, c, d),
    syscall: (nr, a, b, bytes) => lib.symbols.syscall(nr, a, b, ptr(bytes)),
    address: (bytes) => BigInt(ptr(bytes)),
    close: () => lib.close(),
  };
}
