import "server-only";
// The queue's outbox job (outbox.drain): sends every due row (processOutbox: claims with SKIP
// LOCKED, one recorded attempt per send, backoff in the row), then books its own follow-up at the
// earliest row still pending — a retry's backoff, or the lease of a row whose worker died
// mid-send — so retries happen on time without polling. Jobs that ask for it:
//   - enqueueOutbox, in the transaction that stages a row (coalescing job key, NOTIFY at commit);
//   - this follow-up (its own key, so it never pushes the prompt one back);
//   - a cron every minute, the safety net for a follow-up lost with a killed worker;
//   - the worker at start.
// Several drains at once (two workers) are safe: the claim never hands a row to two of them.
import { prisma, type Db } from "../../core/db/client";
import { enqueueJob } from "../../core/queue/enqueue-job";
import { OUTBOX_DRAIN_NEXT_KEY } from "../../core/queue/job-names";
import { processOutbox, type ProcessOutboxOptions, type ProcessOutboxResult } from "./process-outbox";

/** Rows sent by one job at most (batches of 20); a longer backlog continues in the next job at once. */
const MAX_PASSES = 50;

type DrainResult = Omit<ProcessOutboxResult, "claimed"> & { nextDueAt: Date | null };

export async function drainOutbox(options: ProcessOutboxOptions, db: Db = prisma): Promise<DrainResult> {
  const totals = { sent: 0, retrying: 0, failed: 0 };
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const result = await processOutbox(options, db);
    totals.sent += result.sent;
    totals.retrying += result.retrying;
    totals.failed += result.failed;
    if (result.claimed === 0) break;
  }
  const [next] = await db.$queryRaw<{ at: Date | null }[]>`
    SELECT min(next_attempt_at) AS at FROM outbox WHERE status = 'pending'`;
  const nextDueAt = next?.at ?? null;
  if (nextDueAt) await enqueueJob({ task: "outbox.drain", runAt: nextDueAt, jobKey: OUTBOX_DRAIN_NEXT_KEY }, db);
  return { ...totals, nextDueAt };
}
