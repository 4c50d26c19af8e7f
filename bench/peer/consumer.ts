// The baseline peer: the bare idempotent webhook consumer of the article this project started
// from — node:http and a pg Pool, nothing else. One transaction per delivery: claim the event id
// (INSERT … ON CONFLICT DO NOTHING RETURNING), do the business write, COMMIT; 200 {"outcome"}
// for applied and duplicate, 503 when the database fails. Like the article, it checks no
// signature, keeps no receipt and applies no ordering rules: it is the floor of what an ingest
// costs on this machine, measured in the same run as Keyhook (bench/ingest.ts).
//   DATABASE_URL (its own database), PORT, PEER_POOL_SIZE (default 10, like DATABASE_POOL_SIZE)
import { createServer } from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.PEER_POOL_SIZE ?? 10) });

await pool.query(`
  CREATE TABLE IF NOT EXISTS webhook_events (
    event_id   text PRIMARY KEY,
    tenant_id  text NOT NULL,
    seen_at    timestamptz NOT NULL DEFAULT now()
  )`);
await pool.query(`
  CREATE TABLE IF NOT EXISTS district_keys (
    tenant_id  text NOT NULL,
    key_id     text NOT NULL,
    status     text NOT NULL,
    PRIMARY KEY (tenant_id, key_id)
  )`);

type KeyEvent = { id: string; type: string; tenant_id: string; key_id: string };

async function handleOnce(ev: KeyEvent): Promise<"applied" | "duplicate"> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const claim = await client.query(
      `INSERT INTO webhook_events (event_id, tenant_id) VALUES ($1, $2)
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [ev.id, ev.tenant_id],
    );
    if (claim.rowCount === 0) {
      await client.query("ROLLBACK");
      return "duplicate";
    }
    // Same transaction as the claim, so the two commit or neither does. (key.rotated writes the new
    // key too, unlike the article, so every event of the bench stream does one business write.)
    if (ev.type === "key.created" || ev.type === "key.rotated") {
      await client.query(
        `INSERT INTO district_keys (tenant_id, key_id, status) VALUES ($1, $2, 'active')
         ON CONFLICT (tenant_id, key_id) DO NOTHING`,
        [ev.tenant_id, ev.key_id],
      );
    } else if (ev.type === "key.revoked") {
      await client.query("UPDATE district_keys SET status = 'revoked' WHERE tenant_id = $1 AND key_id = $2", [
        ev.tenant_id,
        ev.key_id,
      ]);
    }
    await client.query("COMMIT");
    return "applied";
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/api/webhooks/keys") {
    res.writeHead(req.url === "/api/health" ? 200 : 404).end();
    return;
  }
  let raw = "";
  req.on("data", (chunk) => {
    raw += chunk;
  });
  req.on("end", async () => {
    let ev: KeyEvent;
    try {
      ev = JSON.parse(raw) as KeyEvent;
    } catch {
      res.writeHead(400).end("unparseable body");
      return;
    }
    if (!ev.id) {
      res.writeHead(400).end("missing event id");
      return;
    }
    try {
      const outcome = await handleOnce(ev);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ outcome }));
    } catch {
      res.writeHead(503).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 4960), "127.0.0.1");
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
