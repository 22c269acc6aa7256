// Bun.connect accepts an inherited file descriptor (FdSocketOptions) but its overloads do not
// declare it; this is the one typed door to that call, used on both ends of a host's socketpair.
import type { Socket, SocketHandler } from 'bun';

type FdConnect = (options: { fd: number; socket: SocketHandler<undefined> }) => Promise<Socket<undefined>>;

export function connectFd(fd: number, socket: SocketHandler<undefined>): Promise<Socket<undefined>> {
  return (Bun.connect as unknown as FdConnect)({ fd, socket });
}
