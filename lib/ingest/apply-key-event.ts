import "server-only";
// Claims an event and applies its credential change in ONE interactive transaction
// (docs/design.md, invariants 1–4). The rules themselves run in the SQL function
// keyhook_apply_event (see its migration for why); the receipt of the delivery is written by the
// same statement, so an answered delivery and its receipt commit or vanish together.
import { withDeadline } from "../concurrency/with-deadline";
import { prisma, type Db } from "../db";
import { env } from "../env";
import { Prisma } from "../generated/prisma/client";
import type { KeyEvent, UnknownTypeEvent } from "./event-schema";
import type { ClaimOutcome } from "./ingest-result";

export type IngestOutcome = ClaimOutcome | "duplicate";

export type ApplyResult = {
  outcome: IngestOutcome;
  reason: string | null;
  /** For a duplicate: what the first delivery of this event did. */
  firstOutcome: string | null;
};

export type ApplyKeyEventOptions = {
  event: KeyEvent | UnknownTypeEvent;
  /** The JSON text stored as the ledger payload: validated as storable and redacted (ingest-event.ts). */
  payloadJson: string;
  receivedAt: Date;
  receipt: {
    webhookId: string;
    bodyBytes: number;
    handlerMicros: number;
    source: "provider" | "replay";
    /** Fingerprint of the secret that verified the signature; null for a local replay. */
    secretFingerprint?: string | null;
    clockSkewMs?: number | null;
  };
};

type Row = { outcome: IngestOutcome; reason: string | null; first_outcome: string | null };

export async function applyKeyEvent(options: ApplyKeyEventOptions, db: Db = prisma): Promise<ApplyResult> {
  const timeout = env().INGEST_TX_TIMEOUT_MS;

  // maxWait and timeout bound the wait for a connection and the statement; the deadline also
  // bounds the COMMIT, which waits for the synchronous standby (docs/failover.md). Past it the
  // outcome is unknown: the caller answers 503 and the retry finds the claim if it committed.
  const rows = await withDeadline(
    db.$transaction((tx) => tx.$queryRaw<Row[]>(ingestStatement(options, timeout)), {
      maxWait: timeout,
      timeout,
    }),
    2 * timeout,
    "the ingest transaction",
  );
  const row = rows[0];
  if (!row) throw new Error("keyhook_apply_event returned no row");
  return { outcome: row.outcome, reason: row.reason, firstOutcome: row.first_outcome };
}

/**
 * The one statement of the ingest transaction: a call of keyhook_ingest, which sets the
 * transaction's lock_timeout (= the ingest timeout) and idle timeout itself, claims and applies
 * the event and writes the receipt (see its migration for why all of it is in the function).
 * Exported so a test can look at the transaction it leaves behind.
 */
export function ingestStatement(options: ApplyKeyEventOptions, lockTimeoutMs: number): Prisma.Sql {
  const { event, payloadJson, receivedAt, receipt } = options;
  const key = "keyId" in event ? event : null;
  return Prisma.sql`
      SELECT outcome, reason, first_outcome FROM keyhook_ingest(${lockTimeoutMs}::int,
        ${event.tenantId}, ${event.id}, ${event.type}, ${key?.keyId ?? null}, ${key?.previousKeyId ?? null},
        ${event.sequence}::bigint, ${key?.prefix ?? null}, ${key?.scopes ?? null}::text[],
        ${event.occurredAt}::timestamptz, ${payloadJson}::jsonb, ${receivedAt}::timestamptz,
        ${receipt.webhookId}, ${receipt.source === "replay" ? "not_checked" : "valid"}, ${receipt.handlerMicros}::int,
        ${receipt.bodyBytes}::int, ${receipt.source}, ${receipt.secretFingerprint ?? null}::text, ${receipt.clockSkewMs ?? null}::int,
        ${env().PROVIDER_SEQUENCES_DENSE === "1"}::boolean)`;
}
