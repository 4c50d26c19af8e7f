// A loopback TCP proxy in front of PostgreSQL that a test can cut and restore, to make the
// database unreachable for one process without stopping the server other tests use; or freeze,
// to hold every byte in both directions while the connections stay open (a stalled network: a
// standby streaming through it falls behind without noticing).
import net from "node:net";

export type TcpProxy = {
  port: number;
  down: () => Promise<void>;
  up: () => Promise<void>;
  /** Holds all traffic, on open and new connections, until thaw(). */
  freeze: () => void;
  thaw: () => void;
  close: () => Promise<void>;
};

type Pair = { client: net.Socket; upstream: net.Socket; piped: boolean };

export async function startTcpProxy(
  target: { host: string; port: number },
  options: { port?: number } = {},
): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let server: net.Server | null = null;
  let port = options.port ?? 0;
  let frozen = false;

  const pipe = (pair: Pair) => {
    if (pair.piped) return;
    pair.piped = true;
    pair.client.pipe(pair.upstream).pipe(pair.client);
  };
  const unpipe = (pair: Pair) => {
    if (!pair.piped) return;
    pair.piped = false;
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
    pair.client.pause();
    pair.upstream.pause();
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        const pair: Pair = { client, upstream, piped: false };
        pairs.add(pair);
        for (const socket of [client, upstream]) {
          socket.on("error", () => socket.destroy());
          socket.on("close", () => pairs.delete(pair));
        }
        if (frozen) {
          client.pause();
          upstream.pause();
        } else pipe(pair);
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
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    const closing = server;
    server = null;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return {
    port,
    down,
    up: listen,
    freeze: () => {
      frozen = true;
      for (const pair of pairs) unpipe(pair);
    },
    thaw: () => {
      frozen = false;
      for (const pair of pairs) pipe(pair);
    },
    close: down,
  };
}
