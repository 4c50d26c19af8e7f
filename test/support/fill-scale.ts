// Fills a Keyhook database to dashboard scale with generate_series, in chunks (progress and
// bounded transactions), timing each step:
//   districts   tenants district-000000 … with names, two keys each (one active, one rotated)
//   district-big  500 keys and 1 in (claims / 10,000) claims: the "big district" page
//   claims      over the last 14 days, ids growing with time like real ones; outcomes mostly
//               applied, 2 % stale, 1 % ignored, 0.1 % quarantined (half of those resolved)
//   receipts    one per claim-sized slot: every 20th a duplicate delivery, every 100th a rejected
//               one (bad signature: no tenant, only the webhook id)
//   audit_log   100,000 entries
//   quarantineOpenEvery: n  a storm of misrouted events on top: every n-th claim quarantined and
//               not resolved (6: one in six, 1.67 M open at 10 M claims)
// Then ANALYZE and a first fold of the rollups (lib/operations/rollups), timed too.
export type FillScale = {
  claims: number;
  receipts: number;
  districts: number;
  auditRows?: number;
  quarantineOpenEvery?: number;
};
export type FillTimings = Record<string, number>;

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

const CHUNK = 1_000_000;
export const BIG_DISTRICT = "district-big";

export async function fillScale(
  query: Query,
  scale: FillScale,
  log: (line: string) => void = console.log,
): Promise<FillTimings> {
  const timings: FillTimings = {};
  const step = async (name: string, run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    timings[name] = Math.round(performance.now() - started);
    log(`fill: ${name} ${(timings[name]! / 1000).toFixed(1)} s`);
  };
  await query("SET synchronous_commit = off");
  const bigEvery = Math.max(1, Math.floor(scale.claims / 10_000));
  const tenantOf = (g: string) =>
    `CASE WHEN ${g} % ${bigEvery} = 0 THEN '${BIG_DISTRICT}' ELSE 'district-' || lpad((${g} % ${scale.districts})::text, 6, '0') END`;
  const span = "interval '14 days'";
  const storm = (g: string) => (scale.quarantineOpenEvery ? `${g} % ${scale.quarantineOpenEvery} = 5 OR ` : "");

  await step(`districts (${scale.districts.toLocaleString("en")}) and their keys`, async () => {
    await query(
      `INSERT INTO tenants (id, name, high_water_mark)
       SELECT 'district-' || lpad(g::text, 6, '0'),
              (ARRAY['Maple','Riverside','Cedar','Lakeview','Pine','Oak','Harbor','Summit','Granite','Willow'])[1 + g % 10]
                || ' ' || (ARRAY['Valley','Hills','County','Springs','Park'])[1 + (g / 10) % 5] || ' Schools ' || g, 2
       FROM generate_series(0, $1::int - 1) g
       UNION ALL SELECT '${BIG_DISTRICT}', 'Big City Unified', 500`,
      [scale.districts],
    );
    await query(
      `INSERT INTO api_keys (id, tenant_id, status, prefix, scopes, activated_seq, activated_at, rotated_at, created_at)
       SELECT 'key_fill_' || g || '_' || v, 'district-' || lpad(g::text, 6, '0'), CASE WHEN v = 2 THEN 'active' ELSE 'rotated' END,
              'ik_live_' || lpad((g % 10000)::text, 4, '0'), ARRAY['rosters:read'], v, now() - interval '20 days' + v * interval '1 day',
              CASE WHEN v = 1 THEN now() - interval '18 days' END, now() - interval '20 days' + v * interval '1 day'
       FROM generate_series(0, $1::int - 1) g, generate_series(1, 2) v`,
      [scale.districts],
    );
    await query(
      `INSERT INTO api_keys (id, tenant_id, status, prefix, scopes, activated_seq, activated_at, created_at)
       SELECT 'key_big_' || v, '${BIG_DISTRICT}', CASE WHEN v = 500 THEN 'active' WHEN v % 7 = 0 THEN 'revoked' ELSE 'rotated' END,
              'ik_live_b' || v, ARRAY['rosters:read'], v, now() - interval '30 days' + v * interval '1 hour', now() - interval '30 days' + v * interval '1 hour'
       FROM generate_series(1, 500) v`,
    );
  });

  for (let from = 1; from <= scale.claims; from += CHUNK) {
    const to = Math.min(scale.claims, from + CHUNK - 1);
    await step(`claims ${from.toLocaleString("en")}–${to.toLocaleString("en")}`, () =>
      query(
        `INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, received_at, processed_at, occurred_at, payload, resolved_at, resolution)
         SELECT ${tenantOf("g")}, 'evt_fill_' || g, (ARRAY['key.created','key.rotated','key.rotated','key.revoked'])[1 + g % 4],
                'key_fill_' || g, g,
                CASE WHEN ${storm("g")}g % 1000 = 7 OR g % 1000 = 507 THEN 'quarantined' WHEN g % 50 = 3 THEN 'stale' WHEN g % 100 = 11 THEN 'ignored' ELSE 'applied' END,
                now() - ${span} + g * (${span} / $3::int), now() - ${span} + g * (${span} / $3::int), now() - ${span} + g * (${span} / $3::int),
                '{"filled":true}'::jsonb,
                CASE WHEN g % 1000 = 507 AND NOT (${storm("g")}false) THEN now() END,
                CASE WHEN g % 1000 = 507 AND NOT (${storm("g")}false) THEN 'dismissed' END
         FROM generate_series($1::int, $2::int) g`,
        [from, to, scale.claims],
      ),
    );
  }
  for (let from = 1; from <= scale.receipts; from += CHUNK) {
    const to = Math.min(scale.receipts, from + CHUNK - 1);
    await step(`receipts ${from.toLocaleString("en")}–${to.toLocaleString("en")}`, () =>
      query(
        `INSERT INTO receipts (received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome, error, latency_micros, body_bytes, source)
         SELECT now() - ${span} + g * (${span} / $3::int), 'evt_fill_' || e,
                CASE WHEN g % 100 = 1 THEN NULL ELSE ${tenantOf("e")} END,
                CASE WHEN g % 100 = 1 THEN NULL ELSE 'evt_fill_' || e END,
                CASE WHEN g % 100 = 1 THEN 'invalid' ELSE 'valid' END,
                CASE WHEN g % 100 = 1 THEN 401 ELSE 200 END,
                CASE WHEN g % 100 = 1 THEN NULL WHEN g % 20 = 0 THEN 'duplicate' WHEN ${storm("e")}e % 1000 IN (7, 507) THEN 'quarantined' WHEN e % 50 = 3 THEN 'stale' WHEN e % 100 = 11 THEN 'ignored' ELSE 'applied' END,
                CASE WHEN g % 100 = 1 THEN 'signature mismatch' END, 900 + g % 4000, 240, 'provider'
         FROM generate_series($1::int, $2::int) g, LATERAL (SELECT CASE WHEN g % 20 = 0 THEN g - 1 ELSE g END AS e) ev`,
        [from, to, scale.receipts],
      ),
    );
  }
  const auditRows = scale.auditRows ?? 100_000;
  await step(`audit log (${auditRows.toLocaleString("en")})`, () =>
    query(
      // A stand-in content hash: the scale tests read the log, they do not verify its chain.
      `INSERT INTO audit_log (at, actor_id, actor, action, tenant_id, target, outcome, details, content_hash)
       SELECT now() - interval '14 days' + g * (interval '14 days' / $1::int), 'u_fill', 'support@keyhook.test',
              (ARRAY['key.revoke','quarantine.resolve','delivery.replay','retention.update'])[1 + g % 4],
              'district-' || lpad((g % 1000)::text, 6, '0'), 'evt_fill_' || g, CASE WHEN g % 10 = 0 THEN 'denied' ELSE 'ok' END, '{"filled":true}'::jsonb,
              sha256(g::text::bytea)
       FROM generate_series(1, $1::int) g`,
      [auditRows],
    ),
  );
  await step("ANALYZE", () => query("ANALYZE"));
  return timings;
}
