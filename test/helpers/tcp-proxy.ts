// A TCP relay on loopback that a test can cut and restore: a network partition between one process
// and a server, while other processes keep their direct connections. Cutting resets the open
// connections and stops listening, so new attempts are refused at once (no client hangs on a
// half-open socket); restoring listens on the same port again.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.resetAndDestroy();
    });
  await listen(0);
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the proxy has no port');
  const port = address.port;

  return {
    port,
    cut: stopListening,
    async restore() {
      if (!server.listening) await listen(port);
    },
    close: stopListening,
  };
}
