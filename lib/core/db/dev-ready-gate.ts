import "server-only";
// `npm run dev` starts next dev beside PostgreSQL, its migrations and the demo seed, so that pages
// compile meanwhile (scripts/boot.ts). Until the launcher creates its ready file, a new database
// connection of the app waits for it, instead of being refused or finding tables not there yet:
// a page asked for early is served late, never wrong.
import { existsSync } from "node:fs";
import pg from "pg";

export function isDevReady(readyFile: string): boolean {
  return existsSync(readyFile);
}

/** A pg Client whose connect() first waits for `readyFile` (looked for every 50 ms). */
export function devReadyGatedClient(readyFile: string): typeof pg.Client {
  let ready: Promise<void> | undefined;
  const whenReady = () =>
    (ready ??= new Promise<void>((resolve) => {
      const look = () => (isDevReady(readyFile) ? resolve() : setTimeout(look, 50));
      look();
    }));
  return class DevReadyGatedClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): void;
    override connect(
      callback?: ((err: Error) => void) | ((err: null, client: pg.Client) => void),
    ): Promise<pg.Client> | void {
      const connected = whenReady().then(() => super.connect());
      if (!callback) return connected;
      // pg's pool passes a callback and reads no promise.
      connected.then(
        (client) => (callback as (err: null, client: pg.Client) => void)(null, client),
        (error: Error) => (callback as (err: Error) => void)(error),
      );
    }
  };
}
