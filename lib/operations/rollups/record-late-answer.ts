import "server-only";
// The answer to a delivery whose COMMIT was not confirmed in time (a synchronous standby that does
// not confirm): we answered 503, and the commit may still land, bringing the receipt the claim's
// statement wrote with status 200 (lib/core/ingest/apply-key-event.ts). This writes the answer
// we gave onto that very receipt, by its id:
//   - it waits for the commit's fate (the INSERT's conflict on the id waits for the claim's
//     transaction), then either amends the committed receipt (status 503, the outcome kept: the
//     change did apply) or, the claim having rolled back, writes the receipt anew under that id;
//   - the hourly counts follow: if a fold already counted the receipt as it was, the count moves,
//     under the watermark held FOR SHARE as the purge's subtraction does (fold-rollups.ts).
// One delivery, one receipt, saying what the sender got. Its own COMMIT waits for the standby like
// any other: when the primary is lost before it replicates, the promoted server keeps the 200
// (docs/design.md, "Status codes", says when; the Deliveries page flags it).
import { prisma, type Db } from "../../core/db/client";
import { COUNTED_ROW, HOUR_OF_RECEIVED_AT, ROLLUP_SOURCES } from "./rollup-sources";

type LateAnswer = {
  receiptId: bigint;
  /** What a receipt written anew holds (the claim rolled back). */
  receipt: {
    receivedAt: Date;
    webhookId: string | null;
    eventId: string | null;
    tenantId: string | null;
    signatureVerdict: string;
    latencyMicros: number;
    bodyBytes: number;
    source: string;
    secretFingerprint: string | null;
    clockSkewMs: number | null;
  };
  status: number;
  /** How long the commit had been waited for when the sender was answered. */
  waitedMs: number;
};

/** How long this waits for the late commit: a standby back within it gets the receipt right. */
const LATE_ANSWER_WAIT_MS = 10 * 60_000;

export async function recordLateAnswer(answer: LateAnswer, db: Db = prisma): Promise<"amended" | "recorded_anew"> {
  const { receipt } = answer;
  const { counts, keyColumn, keyOf, okOf } = ROLLUP_SOURCES.receipts;
  const committedLate = `answered ${answer.status}: the commit was not confirmed within ${answer.waitedMs} ms; it committed afterwards`;
  const neverCommitted = `answered ${answer.status}: the commit was not confirmed within ${answer.waitedMs} ms; it never committed`;
  return db.$transaction(
    async (tx) => {
      const [mark] = await tx.$queryRaw<{ folded_id: bigint }[]>`
        SELECT folded_id FROM rollup_watermarks WHERE source = 'receipts' FOR SHARE`;
      const [row] = await tx.$queryRaw<{ amended: boolean }[]>`
        INSERT INTO receipts (id, received_at, webhook_id, tenant_id, event_id, signature_verdict, status, outcome, error,
                              latency_micros, body_bytes, source, secret_fingerprint, clock_skew_ms)
        VALUES (${answer.receiptId}, ${receipt.receivedAt}::timestamptz, ${receipt.webhookId}, ${receipt.tenantId},
                ${receipt.eventId}, ${receipt.signatureVerdict}, ${answer.status}, NULL, ${neverCommitted},
                ${receipt.latencyMicros}, ${receipt.bodyBytes}, ${receipt.source}, ${receipt.secretFingerprint},
                ${receipt.clockSkewMs}::int)
        ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, error = ${committedLate},
          latency_micros = EXCLUDED.latency_micros
        RETURNING receipts.outcome IS NOT NULL AS amended`;
      const amended = row?.amended ?? false;
      // Counted already (the fold passed it): take the 200 out of its bucket (amended), put the
      // answer in its own.
      if (mark && answer.receiptId <= mark.folded_id)
        await tx.$executeRawUnsafe(
          `INSERT INTO ${counts} (hour, ${keyColumn}, rows, ok_rows)
           SELECT ${HOUR_OF_RECEIVED_AT}, ${keyOf}, sum(sign), sum(sign * ${okOf})
           FROM (SELECT received_at, tenant_id, 200 AS status, outcome, -1 AS sign FROM receipts WHERE id = $1 AND $2
                 UNION ALL
                 SELECT received_at, tenant_id, status, outcome, 1 FROM receipts WHERE id = $1) AS receipts
           WHERE ${COUNTED_ROW}
           GROUP BY 1, 2
           ON CONFLICT (hour, ${keyColumn}) DO UPDATE SET rows = ${counts}.rows + EXCLUDED.rows,
             ok_rows = ${counts}.ok_rows + EXCLUDED.ok_rows`,
          answer.receiptId,
          amended,
        );
      return amended ? "amended" : "recorded_anew";
    },
    { maxWait: 10_000, timeout: LATE_ANSWER_WAIT_MS },
  );
}
