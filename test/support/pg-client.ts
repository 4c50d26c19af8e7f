// One pg client for one piece of work: connected, used, always ended. A socket error while idle
// (a server stopped, a failover) surfaces on the next query instead of crashing the process.
import pg from "pg";

export async function withPgClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}
