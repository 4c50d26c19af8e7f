// What a misbehaving sender found, against the production build: poison bodies are 400s and the
// app keeps answering, every non-POST method is a 405 with a receipt, a huge ledger id is a 404,
// key material in a payload reaches no page or CSV, and a deep stored payload still renders.
import pg from "pg";
import { DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { buildKeyEvent, signDelivery } from "../lib/operations/provider/signed-delivery";
import { expect, expectConsoleError, test, USERS, apiAs, deliverSigned, screenshot, signIn } from "./support";

const SECRET = "sk_live_e2eSecretMaterial0123456789";
const TENANT = "district-4417"; // the demo district of USERS.districtAdmin
const databaseUrl = `postgresql://keyhook:keyhook@127.0.0.1:${Number(process.env.E2E_PG_PORT ?? 54531)}/keyhook`;

async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

test("poison bodies are answered 400 with a receipt, and the app still answers", async ({ baseURL }) => {
  const api = await apiAs(baseURL!, null);
  for (const [name, extra] of [
    ["deep", nested(20_000)],
    ["big", "1e400000"],
    ["small", "1e-400000"],
    ["surrogate", '"\\ud800"'],
  ] as const) {
    const event = buildKeyEvent({
      id: `evt_e2e_poison_${name}`,
      type: "key.created",
      tenantId: "district-e2e-poison",
      keyId: `key_e2e_${name}`,
      sequence: 1,
    });
    const body = JSON.stringify({ ...event, extra: "@" }).replace('"@"', extra);
    const signed = signDelivery({ body, webhookId: String(event.id), secrets: [DEV_WEBHOOK_SECRET] });
    const response = await api.post("/api/webhooks/keys", { headers: signed.headers, data: body });
    expect(response.status(), name).toBe(400);
    const rows = await sql<{ status: number }>("SELECT status FROM receipts WHERE webhook_id = $1", [event.id]);
    expect(rows, name).toEqual([{ status: 400 }]);
  }
  expect((await api.get("/api/health")).status()).toBe(200);
  const next = await deliverSigned(api, {
    type: "key.created",
    tenantId: "district-e2e-poison",
    keyId: "key_e2e_after",
    sequence: 1,
  });
  expect(next).toEqual({ status: 200, body: { outcome: "applied" } });
});

test("OPTIONS, HEAD, PUT, PATCH, DELETE and GET on the webhook endpoint → 405 (Allow: POST) with a receipt", async ({
  baseURL,
}) => {
  const api = await apiAs(baseURL!, null);
  for (const method of ["OPTIONS", "HEAD", "PUT", "PATCH", "DELETE", "GET"]) {
    const webhookId = `evt_e2e_method_${method}`;
    const response = await api.fetch("/api/webhooks/keys", { method, headers: { "webhook-id": webhookId } });
    expect(response.status(), method).toBe(405);
    expect(response.headers()["allow"], method).toBe("POST");
    expect(await sql("SELECT status FROM receipts WHERE webhook_id = $1", [webhookId]), method).toEqual([
      { status: 405 },
    ]);
  }
});

test("ledger ids a URL can carry but no row has are a 404, not a 500", async ({ page }) => {
  expectConsoleError(/status of 404 \(Not Found\) \[.*\/ledger\//);
  await signIn(page, USERS.support);
  for (const id of ["9999999999999999999", "99999999999999999999", "-1", "abc"]) {
    const response = await page.goto(`/ledger/${id}`);
    expect(response?.status(), id).toBe(404);
  }
});

test("key material in a payload reaches no page, no CSV and no stored row; a deep stored payload renders", async ({
  page,
  baseURL,
}) => {
  const api = await apiAs(baseURL!, null);
  // A revoke of a key nobody knows: a tombstone, so the demo district's active key (which the
  // journeys revoke later) stays as it is.
  const event = buildKeyEvent({
    id: "evt_e2e_secret",
    type: "key.revoked",
    tenantId: TENANT,
    keyId: "key_e2e_secret",
    sequence: 900_001,
  });
  event.data = { secret: SECRET };
  const signed = signDelivery({
    body: JSON.stringify(event),
    webhookId: "evt_e2e_secret",
    secrets: [DEV_WEBHOOK_SECRET],
  });
  const delivered = await api.post("/api/webhooks/keys", { headers: signed.headers, data: signed.body });
  expect(delivered.status()).toBe(200);

  // Deep, written straight into the database as an older version (no nesting limit) could have.
  const depth = 8_000;
  const deep = `{"id":"evt_e2e_deep","type":"key.revoked","tenant_id":"${TENANT}","key_id":"key_e2e_deep","sequence":900002,"extra":${nested(depth)}}`;
  await sql(
    `INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, payload) VALUES ($1, 'evt_e2e_deep', 'key.revoked', 'key_e2e_deep', 900002, 'applied', $2::jsonb)`,
    [TENANT, deep],
  );
  const ids = await sql<{ event_id: string; id: string }>(
    "SELECT event_id, id::text FROM processed_events WHERE event_id IN ('evt_e2e_secret', 'evt_e2e_deep')",
  );
  const idOf = (eventId: string) => ids.find((row) => row.event_id === eventId)!.id;

  const tables = await sql<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  for (const { name } of tables) {
    const [row] = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${name}" t WHERE t::text LIKE '%sk_live_%'`,
    );
    expect(row!.n, name).toBe(0);
  }

  await signIn(page, USERS.districtAdmin);
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    const secretPage = await page.goto(`/ledger/${idOf("evt_e2e_secret")}`);
    expect(secretPage?.status()).toBe(200);
    await expect(page.getByText('"redacted": true')).toBeVisible();
    expect(await page.content()).not.toContain("sk_live_");
    await screenshot(page, `ledger-event-redacted-${width}`);

    const deepPage = await page.goto(`/ledger/${idOf("evt_e2e_deep")}`);
    expect(deepPage?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "evt_e2e_deep" })).toBeVisible();
    await expect(page.getByText(`"bytes": ${2 * depth}`)).toBeVisible();
    await screenshot(page, `ledger-event-deep-${width}`);
  }
  const csv = await page.request.get("/ledger/export");
  expect(csv.status()).toBe(200);
  const csvText = await csv.text();
  expect(csvText).toContain("evt_e2e_secret");
  expect(csvText).not.toContain("sk_live_");
});
