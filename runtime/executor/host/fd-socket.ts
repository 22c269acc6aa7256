// Bun.connect accepts an inherited file descriptor (FdSocketOptions) but its overloads do not
// declare it; this is the host's typed door to that call, on its end of the socketpair (the
// server's end goes through the platform seam, src/core/platform/bun.ts, which the host may not import).
import type { Socket, SocketHandler } from 'bun';

type FdConnect = (options: { fd: number; socket: SocketHandler<undefined> }) => Promise<Socket<undefined>>;

export function connectFd(fd: number, socket: SocketHandler<undefined>): Promise<Socket<undefined>> {
  return (Bun.connect as unknown as FdConnect)({ fd, socket });
}
