// Server render time of dashboard pages with a large ledger: fills processed_events to the
// target row count with SQL, signs in through next-auth's own credentials flow, then times
// sequential full-page GETs (the whole streamed body, not only the first byte).
import type { AppUnderTest } from "./app-under-test";

export { signInCookie } from "../../test/support/sign-in";

export type RenderTiming = { page: string; requests: number; p50: number; p95: number; max: number };

export async function fillLedger(app: AppUnderTest, targetRows: number): Promise<number> {
  const [row] = await app.query<{ n: string }>("SELECT count(*) AS n FROM processed_events");
  const missing = targetRows - Number(row?.n ?? 0);
  if (missing > 0) {
    // Spread over 50 districts and the last 14 days, like a busy deployment's ledger.
    await app.query(
      `INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, received_at, processed_at, payload)
       SELECT 'district-' || (g % 50), 'evt_fill_' || g, (ARRAY['key.created','key.rotated','key.revoked'])[1 + g % 3], 'key_fill_' || g, g,
              (ARRAY['applied','applied','applied','stale','quarantined','ignored'])[1 + g % 6],
              now() - (g * interval '1209 milliseconds'), now(), '{"filled":true}'::jsonb
       FROM generate_series(1, $1::int) AS g`,
      [missing],
    );
    await app.query("ANALYZE processed_events");
  }
  return targetRows;
}

export async function timePage(baseUrl: string, page: string, cookie: string, requests: number): Promise<RenderTiming> {
  const durations: number[] = [];
  for (let i = 0; i < requests + 3; i++) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${page}`, { headers: { cookie }, redirect: "manual" });
    await response.text();
    if (response.status !== 200) throw new Error(`GET ${page} answered ${response.status}`);
    if (i >= 3) durations.push(performance.now() - started); // the first three warm caches up
  }
  durations.sort((a, b) => a - b);
  const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!;
  return { page, requests, p50: at(0.5), p95: at(0.95), max: durations[durations.length - 1]! };
}
