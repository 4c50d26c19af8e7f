// A loopback TCP proxy between the simulator and the app that holds back some of the app's
// responses until the simulator has given up waiting: the app has COMMITTED and answered, the
// sender saw a timeout and will retry. That is the "response timed out after the commit" fault,
// done on the wire so the app runs unmodified. While the app is down, a connection to it fails
// and the proxy drops the simulator's connection too (the sender sees a network error).
import net from "node:net";

export type SlowResponseProxy = {
  port: number;
  stats(): { connections: number; heldResponses: number };
  /** Resolves when the next request starts towards the app. */
  nextRequest(): Promise<void>;
  close(): Promise<void>;
};

export async function startSlowResponseProxy(options: {
  port: number;
  target: { host: string; port: number };
  /** Probability that a response is held back. */
  rate: number;
  holdMs: number;
  random: () => number;
}): Promise<SlowResponseProxy> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let heldResponses = 0;
  let requestWaiters: (() => void)[] = [];

  const server = net.createServer((client) => {
    connections++;
    let toClient = Promise.resolve();
    const upstream = net.connect(options.target.port, options.target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.on("close", () => upstream.destroy());
    // Bytes the app already sent are on the wire: they still arrive (late) after the app died.
    upstream.on("close", () => void toClient.then(() => client.destroy()));

    // One decision per request/response exchange: rolled when the request starts, applied to the
    // first bytes of its response; later chunks queue behind them, so order is kept.
    let awaitingResponse = false;
    let holdNext = 0;
    client.on("data", (chunk: Buffer) => {
      const starts = !awaitingResponse;
      if (starts) {
        awaitingResponse = true;
        holdNext = options.rate > 0 && options.random() < options.rate ? options.holdMs : 0;
      }
      upstream.write(chunk);
      if (starts && requestWaiters.length > 0) {
        const waiters = requestWaiters;
        requestWaiters = [];
        for (const wake of waiters) wake();
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      let hold = 0;
      if (awaitingResponse) {
        awaitingResponse = false;
        hold = holdNext;
        if (hold > 0) heldResponses++;
      }
      toClient = toClient
        .then(() => (hold > 0 ? new Promise((resolve) => setTimeout(resolve, hold)) : undefined))
        .then(() => {
          if (!client.destroyed) client.write(chunk);
        });
    });
    client.on("end", () => upstream.end());
    upstream.on("end", () => void toClient.then(() => client.end()));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });

  return {
    port: options.port,
    stats: () => ({ connections, heldResponses }),
    nextRequest: () => new Promise<void>((resolve) => requestWaiters.push(resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
