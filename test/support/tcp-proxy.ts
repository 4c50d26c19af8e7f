// A loopback TCP proxy in front of PostgreSQL that a test can cut and restore, to make the
// database unreachable for one process without stopping the server other tests use; or freeze,
// to hold every byte in both directions while the connections stay open (a stalled network: a
// standby streaming through it falls behind without noticing).
import net from "node:net";

export type TcpProxy = {
  port: number;
  down: () => Promise<void>;
  up: () => Promise<void>;
  /**
   * Holds all traffic, on open and new connections, until thaw(); with "from-client", only what
   * the clients send (a standby's confirmations, while the WAL it is sent still flows).
   */
  freeze: (only?: "from-client") => void;
  thaw: () => void;
  close: () => Promise<void>;
};

type Pair = { client: net.Socket; upstream: net.Socket; up: boolean; down: boolean };
type Hold = "none" | "both" | "from-client";

export async function startTcpProxy(
  target: { host: string; port: number },
  options: { port?: number } = {},
): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let server: net.Server | null = null;
  let port = options.port ?? 0;
  let hold: Hold = "none";

  /** Pipes each direction the hold lets through, and stops the ones it holds. */
  const apply = (pair: Pair) => {
    const up = hold === "none";
    const down = hold !== "both";
    if (up && !pair.up) pair.client.pipe(pair.upstream);
    if (!up && pair.up) {
      pair.client.unpipe(pair.upstream);
      pair.client.pause();
    }
    if (down && !pair.down) pair.upstream.pipe(pair.client);
    if (!down && pair.down) {
      pair.upstream.unpipe(pair.client);
      pair.upstream.pause();
    }
    pair.up = up;
    pair.down = down;
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        const pair: Pair = { client, upstream, up: false, down: false };
        pairs.add(pair);
        for (const socket of [client, upstream]) {
          socket.on("error", () => socket.destroy());
          socket.on("close", () => pairs.delete(pair));
        }
        client.pause();
        upstream.pause();
        apply(pair);
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
    freeze: (only) => {
      hold = only ?? "both";
      for (const pair of pairs) apply(pair);
    },
    thaw: () => {
      hold = "none";
      for (const pair of pairs) apply(pair);
    },
    close: down,
  };
}
