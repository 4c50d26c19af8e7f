import "server-only";
// Claims an event and applies its credential change in ONE interactive transaction
// (docs/design.md, invariants 1–4). The rules themselves run in the SQL function
// keyhook_apply_event (see its migration for why); the receipt of the delivery is written by the
// same statement, so an answered delivery and its receipt commit or vanish together. When the
// statement ran but its COMMIT was not confirmed in time, the caller learns which receipt the
// commit may still bring (CommitNotConfirmed), to write onto it the answer it gave instead.
import { withDeadline } from "../concurrency/with-deadline";
import { prisma, type Db } from "../db/client";
import { env } from "../config/env";
import { Prisma } from "../../generated/prisma/client";
import type { KeyEvent, UnknownTypeEvent } from "./event-schema";
import type { IngestOutcome } from "../vocabulary";

export type ApplyResult = {
  outcome: IngestOutcome;
  reason: string | null;
  /** For a duplicate: what the first delivery of this event did. */
  firstOutcome: string | null;
  /** The receipt the statement wrote (status 200). */
  receiptId: bigint;
};

/**
 * The statement ran (claim, change and receipt written) but its COMMIT did not come back in time,
 * or came back with an error: it may still commit, or may never. Either way the caller answers
 * 503; `receiptId` is the receipt that commit would bring.
 */
export class CommitNotConfirmed extends Error {
  constructor(
    readonly receiptId: bigint,
    readonly waitedMs: number,
    cause: unknown,
  ) {
    super(`the ingest transaction's commit was not confirmed within ${waitedMs} ms; it may still commit`, { cause });
    this.name = "CommitNotConfirmed";
  }
}

type ApplyKeyEventOptions = {
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

type Row = { outcome: IngestOutcome; reason: string | null; first_outcome: string | null; receipt_id: bigint };

export async function applyKeyEvent(options: ApplyKeyEventOptions, db: Db = prisma): Promise<ApplyResult> {
  const timeout = env().INGEST_TX_TIMEOUT_MS;

  // maxWait and timeout bound the wait for a connection and the statement; the deadline also
  // bounds the COMMIT, which waits for the synchronous standby (docs/failover.md). Past it the
  // outcome is unknown: the caller answers 503 and the retry finds the claim if it committed.
  let ran: Row | undefined;
  let rows: Row[];
  const started = performance.now();
  try {
    rows = await withDeadline(
      db.$transaction(
        async (tx) => {
          const result = await tx.$queryRaw<Row[]>(ingestStatement(options, timeout));
          ran = result[0];
          return result;
        },
        { maxWait: timeout, timeout },
      ),
      2 * timeout,
      "the ingest transaction",
    );
  } catch (error) {
    // Past the statement only the COMMIT was left: whether it lands is not ours to know now.
    if (ran) throw new CommitNotConfirmed(BigInt(ran.receipt_id), Math.round(performance.now() - started), error);
    throw error;
  }
  const row = rows[0];
  if (!row) throw new Error("keyhook_apply_event returned no row");
  return {
    outcome: row.outcome,
    reason: row.reason,
    firstOutcome: row.first_outcome,
    receiptId: BigInt(row.receipt_id),
  };
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
      SELECT outcome, reason, first_outcome, receipt_id FROM keyhook_ingest(${lockTimeoutMs}::int,
        ${event.tenantId}, ${event.id}, ${event.type}, ${key?.keyId ?? null}, ${key?.previousKeyId ?? null},
        ${event.sequence}::bigint, ${key?.prefix ?? null}, ${key?.scopes ?? null}::text[],
        ${event.occurredAt}::timestamptz, ${payloadJson}::jsonb, ${receivedAt}::timestamptz,
        ${receipt.webhookId}, ${receipt.source === "replay" ? "not_checked" : "valid"}, ${receipt.handlerMicros}::int,
        ${receipt.bodyBytes}::int, ${receipt.source}, ${receipt.secretFingerprint ?? null}::text, ${receipt.clockSkewMs ?? null}::int,
        ${env().PROVIDER_SEQUENCES_DENSE === "1"}::boolean)`;
}
