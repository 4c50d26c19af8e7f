// A loopback TCP proxy in front of PostgreSQL that a test can cut and restore, to make the
// database unreachable for one process without stopping the server other tests use.
import net from "node:net";

export type TcpProxy = { port: number; down: () => Promise<void>; up: () => Promise<void>; close: () => Promise<void> };

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });

  const down = async () => {
    for (const socket of sockets) socket.destroy();
    const closing = server;
    server = null;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return { port, down, up: listen, close: down };
}
