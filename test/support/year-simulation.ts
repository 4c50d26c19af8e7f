// "A year in an afternoon": Keyhook's own code run through simulated days on a controlled clock
// (controlled-clock.ts), against the real database, and every table's rows and size reported at
// a fixed cadence. Used by `npm run bench:year` (bench/year.ts: the stated year, every table must
// plateau) and by test/operations/retention/year-plateau.integration.test.ts (a short run in CI).
//
// What one simulated step (stepHours) does, as production would:
//   - the provider: deliveries of key events over `districts` districts (one active key each):
//     rotations, creations (the old key revoked soon after), revocations, event types we do not
//     handle, misrouted events (quarantined); 1 % delivered a step late (out of order: gaps that
//     close, stale activations), 0.02 % two days late (a gap past the retry horizon: an alert),
//     5 % redelivered (duplicates), 0.5 % rejected (bad signature). Each delivery goes through
//     keyhook_ingest, the statement the webhook route runs (claim, apply, receipt in one call),
//     with its received_at inside the step;
//   - the worker: the rollup fold, the alert sweep, the notifier (one webhook channel) and the
//     outbox drain (a fake provider and channel that answer 200, 5 % of first attempts fail);
// and once a day: the drift check (01:00 when DRIFT_CHECK_INTERVAL_HOURS, driftEveryHours, has
// passed; the real check against a provider that lists what the simulated provider holds), the purge (03:00, the real run with pauses off: the pacing's rests
// are real seconds), the sign-in records purge (03:10), a VACUUM (ANALYZE) standing in for a real
// day of autovacuum (04:00: autovacuum runs on real time), a readiness run (06:00: recorded as the
// check records it — run row, audit entry, the canary's deliveries — without its HTTP round
// trips), and the humans (10:00): every quarantined event and every alert older than 12 h
// resolved, 10 keys revoked from the dashboard (the provider confirms by webhook), 150 sign-ins
// (signInsPerDay) and 10 failed ones audited.
import pg from "pg";
import { recordAudit } from "../../lib/core/audit/record-audit";
import { recordSignInFailure } from "../../lib/core/audit/record-sign-in-failure";
import type { Actor } from "../../lib/core/auth/actor";
import { claimAddressAttempt } from "../../lib/core/auth/claim-sign-in-attempt";
import { purgeSignInRecords } from "../../lib/operations/retention/purge-sign-in-records";
import { resolveAlert } from "../../lib/operations/alerts/act-on-alert";
import { sweepAlerts } from "../../lib/operations/worker/sweep-alerts";
import { prisma } from "../../lib/core/db/client";
import { runDriftJob } from "../../lib/operations/drift/drift-job";
import { revokeKey } from "../../lib/core/keys/revoke-key";
import { NotificationError } from "../../lib/operations/notifications/notification-error";
import { notifyAlerts } from "../../lib/operations/notifications/notify-alerts";
import { processOutbox } from "../../lib/operations/outbox/process-outbox";
import type { ProviderClient, ProviderKey } from "../../lib/operations/provider/client";
import { resolveQuarantinedEvent } from "../../lib/operations/quarantine/resolve-quarantined-event";
import { CANARY_TENANT_ID } from "../../lib/core/tenancy/canary";
import { runPurge } from "../../lib/operations/retention/run-purge";
import { foldRollups } from "../../lib/operations/rollups/fold-rollups";
import { installControlledClock, type ControlledClock } from "./controlled-clock";

export type YearConfig = {
  days: number;
  eventsPerDay: number;
  districts: number;
  /** The worker's cadence in simulated hours (a divisor of 24). */
  stepHours: number;
  /** A report of every table every this many simulated days (30: a month). */
  reportEveryDays: number;
  /** DRIFT_CHECK_INTERVAL_HOURS of the simulated deployment (default 24: a check a day). */
  driftEveryHours?: number;
  /** Successful sign-ins audited per day (default 150; 10 failed ones besides). */
  signInsPerDay?: number;
  seed?: number;
  /** The first simulated day (default: the next UTC midnight): rows are stamped from there on. */
  start?: Date;
  log?: (line: string) => void;
  onReport?: (report: TablesReport) => void;
};

/** bytes: heap, indexes and TOAST together; indexBytes: the indexes' part of it. */
export type TableFigure = { rows: number; bytes: number; indexBytes?: number };
export type TablesReport = { day: number; at: string; tables: Record<string, TableFigure> };
export type YearResult = { reports: TablesReport[]; seconds: Record<string, number>; events: number };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const HUMAN: Actor = {
  id: "u_sim_admin",
  email: "admin@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};

type District = { id: string; seq: number; active: string | null; alsoLive: string[]; keys: number };
type Delivery = {
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string;
  previousKeyId: string | null;
  sequence: number;
  occurredAt: Date;
};

/** mulberry32: the same year on every run of the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const prefixOf = (keyId: string) => `ik_live_${keyId.slice(-6)}`;

/** The provider: its districts and keys, and the events it sends about them. */
class Provider {
  readonly districts: District[];
  private counter = 0;
  /** Revokes the dashboard asked for, to be confirmed by a key.revoked webhook. */
  private confirmations: { tenantId: string; keyId: string }[] = [];

  constructor(
    count: number,
    private readonly rand: () => number,
  ) {
    this.districts = Array.from({ length: count }, (_, i) => ({
      id: `district-${String(i).padStart(5, "0")}`,
      seq: 0,
      active: null,
      alsoLive: [],
      keys: 0,
    }));
    this.byId = new Map(this.districts.map((d) => [d.id, d]));
  }

  private readonly byId: Map<string, District>;

  liveKeys(tenantId: string): ProviderKey[] {
    const district = this.byId.get(tenantId);
    if (!district) return [];
    return [district.active, ...district.alsoLive]
      .filter((id): id is string => id !== null)
      .map((id) => ({
        id,
        tenantId,
        status: "active",
        prefix: prefixOf(id),
        scopes: ["rosters:read"],
        createdAt: new Date(),
      }));
  }

  revokedFromDashboard(tenantId: string, keyId: string): void {
    this.confirmations.push({ tenantId, keyId });
  }

  private newKey(district: District): string {
    district.keys += 1;
    return `key_${district.id.slice(-5)}_${district.keys}`;
  }

  private event(district: District, type: string, keyId: string, previousKeyId: string | null, at: Date): Delivery {
    district.seq += 1;
    this.counter += 1;
    return {
      tenantId: district.id,
      eventId: `evt_${this.counter.toString(36)}_${district.seq}`,
      type,
      keyId,
      previousKeyId,
      sequence: district.seq,
      occurredAt: new Date(at.getTime() - 2_000),
    };
  }

  /** The events of one step: confirmations of dashboard revokes first, then `count` new ones. */
  events(count: number, at: Date): Delivery[] {
    const out: Delivery[] = [];
    for (const { tenantId, keyId } of this.confirmations.splice(0)) {
      const district = this.byId.get(tenantId)!;
      if (district.active === keyId) district.active = null;
      district.alsoLive = district.alsoLive.filter((k) => k !== keyId);
      out.push(this.event(district, "key.revoked", keyId, null, at));
    }
    for (let i = 0; i < count; i++) {
      const district = this.districts[Math.floor(this.rand() * this.districts.length)]!;
      const r = this.rand();
      if (district.alsoLive.length > 0) {
        // A key a creation superseded: its revocation follows.
        out.push(this.event(district, "key.revoked", district.alsoLive.shift()!, null, at));
      } else if (district.active === null || r < 0.15) {
        const keyId = this.newKey(district);
        if (district.active) district.alsoLive.push(district.active);
        district.active = keyId;
        out.push(this.event(district, "key.created", keyId, null, at));
      } else if (r < 0.6) {
        const keyId = this.newKey(district);
        out.push(this.event(district, "key.rotated", keyId, district.active, at));
        district.active = keyId;
      } else if (r < 0.975) {
        out.push(this.event(district, "key.revoked", district.active, null, at));
        district.active = null;
      } else if (r < 0.998) {
        out.push(this.event(district, "key.usage_reported", district.active, null, at));
      } else {
        // Misrouted: a key of another district (quarantined: "belongs to another tenant").
        const other = this.districts.find((d) => d !== district && d.active !== null);
        if (other) out.push(this.event(district, "key.revoked", other.active!, null, at));
      }
    }
    return out;
  }
}

const INGEST = `
  SELECT r.outcome
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[],
              $8::jsonb[], $9::timestamptz[], $10::int[]) WITH ORDINALITY
       AS e(tenant_id, event_id, type, key_id, previous_key_id, sequence, occurred_at, payload, received_at, body_bytes, ord)
  CROSS JOIN LATERAL keyhook_ingest(5000, e.tenant_id, e.event_id, e.type, e.key_id, e.previous_key_id, e.sequence,
    CASE WHEN e.type = 'key.revoked' THEN NULL ELSE 'ik_live_' || right(e.key_id, 6) END,
    CASE WHEN e.type = 'key.revoked' THEN NULL ELSE ARRAY['rosters:read'] END,
    e.occurred_at, e.payload, e.received_at, e.event_id, 'valid', 900, e.body_bytes, 'provider', 'fp_sim', 150, true) r
  ORDER BY e.ord`;

const READINESS_STEPS = ["duplicate_delivery", "forced_failure", "delivery_history", "retention"].map((id) => ({
  id,
  title: id.replace("_", " "),
  passed: true,
  summary: "observed as expected",
  fix: null,
  evidence: { event_id: "evt_canary", receipts: [{ status: 200, outcome: "applied" }], note: "x".repeat(200) },
  durationMs: 800,
}));

export async function simulateYear(databaseUrl: string, config: YearConfig): Promise<YearResult> {
  const log = config.log ?? (() => undefined);
  const rand = random(config.seed ?? 42);
  const provider = new Provider(config.districts, rand);
  const start = config.start ?? new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "keyhook-year" });
  await client.connect();
  const clock: ControlledClock = installControlledClock(start);
  const seconds: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      seconds[name] = (seconds[name] ?? 0) + (performance.now() - started) / 1000;
    }
  };
  const reports: TablesReport[] = [];
  let events = 0;
  let held: { due: number; delivery: Delivery }[] = [];
  const recent: Delivery[] = [];
  const fakeProvider = {
    async revokeKey(input: { tenantId: string; keyId: string }) {
      provider.revokedFromDashboard(input.tenantId, input.keyId);
      return { key: provider.liveKeys(input.tenantId)[0] ?? null, secret: null, eventId: null };
    },
    async listKeys(input: { tenantId: string }) {
      return { items: provider.liveKeys(input.tenantId), nextCursor: null };
    },
  } as unknown as ProviderClient;
  const notify = async () => {
    if (rand() < 0.05) throw new NotificationError("channel answered 503", { status: 503, retryable: true });
    return { status: 200 };
  };

  const ingest = async (deliveries: Delivery[], from: number, to: number) => {
    // Delivered in order of arrival, spread over the step.
    const times = deliveries.map(() => new Date(from + Math.floor(rand() * (to - from)))).sort((a, b) => +a - +b);
    const payloads = deliveries.map((d) =>
      JSON.stringify({
        id: d.eventId,
        type: d.type,
        tenant_id: d.tenantId,
        key_id: d.keyId,
        previous_key_id: d.previousKeyId ?? undefined,
        sequence: d.sequence,
        occurred_at: d.occurredAt.toISOString(),
        data: d.type === "key.revoked" ? undefined : { prefix: prefixOf(d.keyId), scopes: ["rosters:read"] },
      }),
    );
    for (let i = 0; i < deliveries.length; i += 1000) {
      const chunk = deliveries.slice(i, i + 1000);
      await client.query(INGEST, [
        chunk.map((d) => d.tenantId),
        chunk.map((d) => d.eventId),
        chunk.map((d) => d.type),
        chunk.map((d) => d.keyId),
        chunk.map((d) => d.previousKeyId),
        chunk.map((d) => d.sequence),
        chunk.map((d) => d.occurredAt),
        payloads.slice(i, i + 1000),
        times.slice(i, i + 1000),
        payloads.slice(i, i + 1000).map((p) => p.length),
      ]);
    }
    events += deliveries.length;
  };

  const step = async (from: number, to: number) => {
    const due = held.filter((h) => h.due <= from).map((h) => h.delivery);
    held = held.filter((h) => h.due > from);
    const count = Math.round(((config.eventsPerDay * config.stepHours) / 24) * (0.8 + 0.4 * rand()));
    const fresh = provider.events(count, new Date(from));
    const now: Delivery[] = [...due];
    for (const delivery of fresh) {
      const r = rand();
      if (r < 0.0002) held.push({ due: from + 2 * DAY_MS, delivery });
      else if (r < 0.0102) held.push({ due: to, delivery });
      else now.push(delivery);
    }
    // Redeliveries of what arrived lately, as a provider retries a timed-out or unacknowledged one.
    const redelivered = Array.from(
      { length: Math.round(count * 0.05) },
      () => recent[Math.floor(rand() * recent.length)],
    ).filter((d): d is Delivery => d !== undefined);
    await timed("ingest", () => ingest([...now, ...redelivered], from, to));
    recent.splice(0, recent.length, ...now.slice(-500));
    const rejected = Math.round(count * 0.005);
    if (rejected > 0)
      await timed("ingest", () =>
        client.query(
          `INSERT INTO receipts (received_at, webhook_id, signature_verdict, status, error, latency_micros, body_bytes, source)
           SELECT $1::timestamptz + g * interval '1 second', 'msg_rejected_' || g, 'invalid', 401, 'signature mismatch', 300, 240, 'provider'
           FROM generate_series(1, $2::int) g`,
          [new Date(from), rejected],
        ),
      );
    clock.set(new Date(to));
    const at = clock.now();
    await timed("worker:fold", () => foldRollups());
    await timed("worker:sweep", () => sweepAlerts({ now: at }));
    await timed("worker:notify", () => notifyAlerts({ now: at }));
    await timed("worker:outbox", async () => {
      for (let pass = 0; pass < 50; pass++) {
        const result = await processOutbox({ client: fakeProvider, notify, now: () => clock.now(), baseBackoffMs: 1 });
        if (result.claimed === 0) break;
      }
    });
  };

  // The day's jobs and people, each at its hour: [hour, what].
  const dailyTasks = (day: number, dayStart: number): [number, () => Promise<void>][] => {
    const at = (hour: number, minute = 0) => {
      clock.set(new Date(dayStart + hour * HOUR_MS + minute * 60_000));
      return clock.now();
    };
    const drift = () =>
      timed("drift", async () => {
        const now = at(1);
        await runDriftJob({
          provider: fakeProvider,
          now: () => now,
          intervalHours: config.driftEveryHours ?? 24,
          pageSize: 500,
        });
      });
    const purge = () =>
      timed("purge", async () => {
        const now = at(3);
        await runPurge({ trigger: "schedule", now, scheduledFor: now, pauseMs: 0 });
        await purgeSignInRecords({ now: at(3, 10) });
      });
    // Autovacuum works on real time (a look every minute), and a simulated day lasts seconds: what
    // it does in a real day between two purges, one VACUUM (ANALYZE) does here, after the purge.
    const vacuum = () =>
      timed("vacuum", async () => {
        await client.query("VACUUM (ANALYZE)");
      });
    const readiness = () =>
      timed("readiness", async () => {
        const startedAt = at(6);
        const run = await prisma.readinessRun.create({
          data: {
            actor: "schedule",
            trigger: "cli",
            startedAt,
            finishedAt: new Date(startedAt.getTime() + 4_000),
            passed: true,
            steps: READINESS_STEPS,
          },
        });
        await recordAudit({
          actor: { id: null, label: "schedule" },
          action: "readiness.run",
          tenantId: CANARY_TENANT_ID,
          target: `readiness_runs/${run.id}`,
          outcome: "ok",
          details: { trigger: "cli", failed_steps: [] },
        });
        const canary: Delivery = {
          tenantId: CANARY_TENANT_ID,
          eventId: `evt_canary_${day}`,
          type: "key.created",
          keyId: `key_canary_${day}`,
          previousKeyId: null,
          sequence: day + 1,
          occurredAt: startedAt,
        };
        await ingest([canary, canary], startedAt.getTime(), startedAt.getTime() + 2_000);
      });
    const humans = () =>
      timed("humans", async () => {
        const now = at(10);
        const waiting = await prisma.processedEvent.findMany({
          where: {
            outcome: "quarantined",
            resolvedAt: null,
            receivedAt: { lt: new Date(now.getTime() - 12 * HOUR_MS) },
          },
          select: { id: true },
          take: 2_000,
        });
        for (const event of waiting)
          await resolveQuarantinedEvent({ actor: HUMAN, id: String(event.id), resolution: "dismissed" });
        const alerts = await prisma.alert.findMany({
          where: {
            state: { in: ["open", "acknowledged"] },
            firstSeenAt: { lt: new Date(now.getTime() - 12 * HOUR_MS) },
          },
          select: { id: true, kind: true },
          take: 2_000,
        });
        for (const alert of alerts) {
          const drift = alert.kind.startsWith("drift_");
          await resolveAlert({
            actor: HUMAN,
            id: String(alert.id),
            resolution: drift ? "explained" : "resolved",
            note: drift ? "checked with the provider" : undefined,
            now,
          }).catch(() => undefined); // a condition the sweep resolved meanwhile
        }
        for (const district of provider.districts.filter((d) => d.active !== null).slice(day % 50, (day % 50) + 10)) {
          await revokeKey({ actor: HUMAN, keyId: district.active! }).catch(() => undefined);
        }
        for (let i = 0; i < (config.signInsPerDay ?? 150); i++)
          await recordAudit({
            actor: { id: `u_${i % 400}`, label: `admin${i % 400}@district.test` },
            action: "sign-in",
            outcome: "ok",
            details: { method: "credentials" },
          });
        for (let i = 0; i < 10; i++) {
          const address = `203.0.113.${(day * 10 + i) % 250}`;
          await claimAddressAttempt(address, now, prisma);
          await recordSignInFailure({
            subject: `unknown-${day}-${i}@example.test`,
            actor: { id: null, label: `unknown-${day}-${i}@example.test` },
            tenantId: null,
            address,
            now,
          });
        }
      });
    return [
      [1, drift],
      [3, purge],
      [4, vacuum],
      [6, readiness],
      [10, humans],
    ];
  };

  try {
    await prisma.alertChannel.upsert({
      where: { id: "ch_sim" },
      create: {
        id: "ch_sim",
        kind: "webhook",
        name: "On-call",
        target: "https://hooks.example.test/keyhook",
        secret: "whsec_c2ltdWxhdGVkLWNoYW5uZWwtc2VjcmV0",
      },
      update: {},
    });
    for (let day = 0; day < config.days; day++) {
      const dayStart = start.getTime() + day * DAY_MS;
      const tasks = dailyTasks(day, dayStart);
      for (let hour = 0; hour < 24; hour += config.stepHours) {
        for (const [, task] of tasks.filter(([at]) => at >= hour && at < hour + config.stepHours)) await task();
        await step(dayStart + hour * HOUR_MS, dayStart + (hour + config.stepHours) * HOUR_MS);
      }
      if ((day + 1) % 5 === 0) log(`day ${day + 1}: ${events.toLocaleString("en")} deliveries so far`);
      if ((day + 1) % config.reportEveryDays === 0) {
        const report = await timed("report", () => tablesReport(client, day + 1, clock.now()));
        reports.push(report);
        config.onReport?.(report);
      }
    }
    return { reports, seconds, events };
  } finally {
    clock.uninstall();
    await client.end();
  }
}

/** Every table of the schema and the job queue's: exact rows and on-disk bytes (heap, indexes, TOAST; the indexes apart). */
async function tablesReport(client: pg.Client, day: number, at: Date): Promise<TablesReport> {
  const { rows: names } = await client.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname = 'public' OR (schemaname = 'graphile_worker' AND tablename = '_private_jobs')
     ORDER BY schemaname DESC, tablename`,
  );
  const tables: Record<string, TableFigure> = {};
  for (const { name } of names) {
    const { rows } = await client.query<{ rows: string; bytes: string; index_bytes: string }>(
      `SELECT (SELECT count(*) FROM ${name})::text AS rows, pg_total_relation_size('${name}')::text AS bytes,
              pg_indexes_size('${name}')::text AS index_bytes`,
    );
    tables[name.replace(/^public\./, "")] = {
      rows: Number(rows[0]!.rows),
      bytes: Number(rows[0]!.bytes),
      indexBytes: Number(rows[0]!.index_bytes),
    };
  }
  return { day, at: at.toISOString(), tables };
}

/**
 * Whether a table has levelled off between two reports: its rows grew by at most `rowSlack`
 * (relative) or `minRows`, its bytes by at most `byteSlack` or `minBytes`.
 */
export function plateaued(
  before: TableFigure,
  after: TableFigure,
  limits = { rowSlack: 0.05, minRows: 50, byteSlack: 0.15, minBytes: 1024 * 1024 },
): boolean {
  const rowsOk = after.rows - before.rows <= Math.max(limits.minRows, before.rows * limits.rowSlack);
  const bytesOk = after.bytes - before.bytes <= Math.max(limits.minBytes, before.bytes * limits.byteSlack);
  return rowsOk && bytesOk;
}
