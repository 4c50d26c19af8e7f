// Everything the checker looks at, read once after the run has drained: the sender's side
// (every delivery attempt in the simulator's history, and its truth about keys) and the
// receiver's side (ledger, receipts and keys, straight from PostgreSQL).
import pg from "pg";
import { DEV_PROVIDER_API_KEY } from "../lib/core/config/env";
import { createProviderClient, type ProviderDeliveryAttempt } from "../lib/operations/provider/client";

export type TruthTenant = { id: string; sequence: number; keys: { id: string; status: string }[] };

export type Observations = {
  attempts: ProviderDeliveryAttempt[];
  truth: TruthTenant[];
  ledger: { eventId: string; tenantId: string; outcome: string }[];
  /** Receipts grouped by event, status and outcome. */
  receipts: { eventId: string | null; status: number; outcome: string | null; count: number }[];
  keys: { id: string; tenantId: string; status: string }[];
};

export async function collectObservations(options: {
  simUrl: string;
  hookId: string;
  databaseUrl: string;
}): Promise<Observations> {
  const client = createProviderClient({ baseUrl: options.simUrl, apiKey: DEV_PROVIDER_API_KEY });
  const attempts: ProviderDeliveryAttempt[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: ProviderDeliveryAttempt[]; nextCursor: string | null } = await client.listDeliveries({
      hookId: options.hookId,
      cursor,
      limit: 250,
    });
    attempts.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);

  const truthResponse = await fetch(`${options.simUrl}/_sim/truth`, {
    headers: { authorization: `Bearer ${DEV_PROVIDER_API_KEY}` },
  });
  if (!truthResponse.ok) throw new Error(`GET /_sim/truth → ${truthResponse.status}`);
  const truth = ((await truthResponse.json()) as { tenants: TruthTenant[] }).tenants;

  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const ledger = await db.query<Observations["ledger"][number]>(
      `SELECT event_id AS "eventId", tenant_id AS "tenantId", outcome FROM processed_events`,
    );
    const receipts = await db.query<Observations["receipts"][number]>(
      `SELECT event_id AS "eventId", status, outcome, count(*)::int AS count FROM receipts GROUP BY event_id, status, outcome`,
    );
    const keys = await db.query<Observations["keys"][number]>(
      `SELECT id, tenant_id AS "tenantId", status FROM api_keys`,
    );
    return { attempts, truth, ledger: ledger.rows, receipts: receipts.rows, keys: keys.rows };
  } finally {
    await db.end();
  }
}
