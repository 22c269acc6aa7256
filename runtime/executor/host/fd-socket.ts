// The host's end of its channel to the server, the socket inherited on fd 3, with Bun's socket
// handlers as the shape on both runtimes. Bun.connect accepts an inherited file descriptor
// (FdSocketOptions) but its overloads do not declare it; on Deno, node:net opens the descriptor.
// (The server's end goes through the platform seam, src/core/platform/, which the host may not import.)
import type { Socket, SocketHandler } from 'bun';

type FdConnect = (options: { fd: number; socket: SocketHandler<undefined> }) => Promise<Socket<undefined>>;

/** What the host writes to: the number of bytes accepted, -1 once closed (Bun's socket.write contract). */
export interface ChannelSocket {
  write(data: string | Uint8Array): number;
}

interface ChannelHandlers {
  data(socket: ChannelSocket, chunk: Uint8Array): void;
  drain(socket: ChannelSocket): void;
  end(socket: ChannelSocket): void;
  close(socket: ChannelSocket): void;
  error(socket: ChannelSocket, error: Error): void;
}

export async function connectFd(fd: number, handlers: Partial<ChannelHandlers>): Promise<ChannelSocket> {
  if (!('Deno' in globalThis)) return (Bun.connect as unknown as FdConnect)({ fd, socket: handlers as SocketHandler<undefined> });
  const { Socket: NodeSocket } = await import('node:net');
  const socket = new NodeSocket({ fd, readable: true, writable: true });
  const channel: ChannelSocket = {
    // Node's socket takes every write (it buffers what the descriptor does not), so all is accepted.
    write: (data) => (socket.destroyed ? -1 : (socket.write(data), typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength)),
  };
  socket.on('data', (chunk: Buffer) => handlers.data?.(channel, chunk));
  socket.on('drain', () => handlers.drain?.(channel));
  socket.on('end', () => handlers.end?.(channel));
  socket.on('close', () => handlers.close?.(channel));
  socket.on('error', (error) => handlers.error?.(channel, error));
  return channel;
}
