import "server-only";
// Per signing secret: how many deliveries it verified (24 h, 7 d), the last one, and whether it is
// safe to retire; and the clock skew between the provider and us. Read from the receipts, which
// record the verifying secret's fingerprint and the skew (lib/core/ingest/verify-signature.ts).
//
// "Safe to retire": another configured secret has taken over (it verified something after this
// one's last delivery) and this one has been silent for longer than the provider's retry horizon,
// so no retry signed with it can still arrive. A secret that never verified anything is "not used
// yet" (it may be the new one of a rotation the provider has not switched to), never retirable.
import { prisma, type DbOrTx } from "../../core/db/client";
import { secretFingerprint } from "../../core/ingest/secret-fingerprint";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { env } from "../../core/config/env";
import { getRetentionSettings } from "../../operations/retention/settings";

type SecretUsage = {
  fingerprint: string;
  /** v1: a whsec_ secret (HMAC); v1a: a whpk_ Ed25519 public key. */
  version: "v1" | "v1a";
  verified24h: number;
  verified7d: number;
  lastVerifiedAt: Date | null;
  safeToRetire: boolean;
  /** |skew| over the last 24 h of its deliveries, ms; null without deliveries. */
  skewP50Ms: number | null;
  skewP99Ms: number | null;
};

type SignatureTelemetry = {
  secrets: SecretUsage[];
  toleranceSeconds: number;
  retryHorizonHours: number;
  /** Every delivery of the last 24 h that carried a timestamp, accepted or not. */
  skew: { p50Ms: number | null; p99Ms: number | null; expired24h: number; samples24h: number };
  /** p99 of |skew| at or above 80 % of the tolerance: deliveries are close to being refused. */
  skewWarning: boolean;
};

type UsageRow = {
  fingerprint: string;
  d1: bigint;
  d7: bigint;
  last: Date | null;
  p50: number | null;
  p99: number | null;
};
type SkewRow = { p50: number | null; p99: number | null; expired: bigint; samples: bigint };

export const SKEW_WARNING_SHARE = 0.8;

export async function getSignatureTelemetry(
  options: { secrets: readonly string[]; toleranceSeconds: number; retryHorizonHours: number; now?: Date },
  db: DbOrTx = prisma,
): Promise<SignatureTelemetry> {
  const now = options.now ?? new Date();
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const weekAgo = new Date(now.getTime() - 7 * 86_400_000);
  // The secrets and the public keys alike: a receipt records whichever verified it by fingerprint.
  const fingerprints = options.secrets.map(secretFingerprint);
  const fingerprintVersions = new Map(
    options.secrets.map(
      (credential) => [secretFingerprint(credential), credential.startsWith("whpk_") ? "v1a" : "v1"] as const,
    ),
  );

  const [usage, skewRows] = await Promise.all([
    db.$queryRaw<UsageRow[]>`
      SELECT secret_fingerprint AS fingerprint,
             count(*) FILTER (WHERE received_at >= ${dayAgo}::timestamptz) AS d1,
             count(*) AS d7,
             max(received_at) AS last,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(clock_skew_ms)) FILTER (WHERE received_at >= ${dayAgo}::timestamptz) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY abs(clock_skew_ms)) FILTER (WHERE received_at >= ${dayAgo}::timestamptz) AS p99
      FROM receipts
      WHERE received_at >= ${weekAgo}::timestamptz AND received_at <= ${now}::timestamptz
        AND secret_fingerprint IS NOT NULL
      GROUP BY secret_fingerprint`,
    db.$queryRaw<SkewRow[]>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(clock_skew_ms)) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY abs(clock_skew_ms)) AS p99,
             count(*) FILTER (WHERE signature_verdict = 'expired') AS expired,
             count(*) AS samples
      FROM receipts
      WHERE received_at >= ${dayAgo}::timestamptz AND received_at <= ${now}::timestamptz AND clock_skew_ms IS NOT NULL`,
  ]);

  const byFingerprint = new Map(usage.map((row) => [row.fingerprint, row]));
  const lastOf = new Map<string, Date | null>();
  for (const fingerprint of fingerprints) {
    const row = byFingerprint.get(fingerprint);
    if (row?.last) {
      lastOf.set(fingerprint, row.last);
      continue;
    }
    // Silent for a week: look further back (only for such secrets; the receipts are bounded by retention).
    const [older] = await db.$queryRaw<{ last: Date | null }[]>`
      SELECT max(received_at) AS last FROM receipts WHERE secret_fingerprint = ${fingerprint} AND received_at <= ${now}::timestamptz`;
    lastOf.set(fingerprint, older?.last ?? null);
  }

  const horizonMs = options.retryHorizonHours * 3_600_000;
  const secrets = fingerprints.map((fingerprint): SecretUsage => {
    const row = byFingerprint.get(fingerprint);
    const last = lastOf.get(fingerprint) ?? null;
    const takenOver = fingerprints.some(
      (other) => other !== fingerprint && (lastOf.get(other)?.getTime() ?? -Infinity) > (last?.getTime() ?? Infinity),
    );
    return {
      fingerprint,
      version: fingerprintVersions.get(fingerprint) ?? "v1",
      verified24h: Number(row?.d1 ?? 0),
      verified7d: Number(row?.d7 ?? 0),
      lastVerifiedAt: last,
      safeToRetire: last !== null && takenOver && now.getTime() - last.getTime() > horizonMs,
      skewP50Ms: row?.p50 === null || row?.p50 === undefined ? null : Math.round(row.p50),
      skewP99Ms: row?.p99 === null || row?.p99 === undefined ? null : Math.round(row.p99),
    };
  });

  const skew = skewRows[0];
  const p99 = skew?.p99 === null || skew?.p99 === undefined ? null : Math.round(skew.p99);
  return {
    secrets,
    toleranceSeconds: options.toleranceSeconds,
    retryHorizonHours: options.retryHorizonHours,
    skew: {
      p50Ms: skew?.p50 === null || skew?.p50 === undefined ? null : Math.round(skew.p50),
      p99Ms: p99,
      expired24h: Number(skew?.expired ?? 0),
      samples24h: Number(skew?.samples ?? 0),
    },
    skewWarning: p99 !== null && p99 >= options.toleranceSeconds * 1000 * SKEW_WARNING_SHARE,
  };
}

/** The Settings page's view: this deployment's secrets, tolerance and retry horizon. */
export async function getSignatureTelemetryFor(
  options: { actor: Actor },
  db: DbOrTx = prisma,
): Promise<SignatureTelemetry> {
  authorize(options.actor, "settings.view");
  const config = env();
  const { retryHorizonHours } = await getRetentionSettings(db);
  return getSignatureTelemetry(
    {
      secrets: [...config.WEBHOOK_SECRETS, ...config.WEBHOOK_PUBLIC_KEYS],
      toleranceSeconds: config.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS,
      retryHorizonHours,
    },
    db,
  );
}
