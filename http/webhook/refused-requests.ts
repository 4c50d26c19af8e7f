// Receipts of webhook requests refused before any handler could read them: the HTTP parser's
// refusals (a bad Content-Length, oversized headers; the production server's `clientError`) and
// bodies cut off mid-way. Garbage costs nothing to send, so these receipts are rate-limited per
// process (REFUSED_RECEIPTS_PER_MINUTE, a token bucket): beyond the limit a refusal is counted in
// /api/metrics and answered the same, but not stored.
// No database import: the production server runs outside Next's bundle (and without the
// react-server condition), so the writer is registered from inside it (instrumentation.ts), as
// lib/core/shutdown-hooks.ts does; the bucket and the writer live on globalThis for both copies.
import { env } from "../../lib/core/config/env";
import { describeError, log } from "../../lib/core/log";
import { metrics, recordDelivery } from "../../lib/core/telemetry/ingest-metrics";
import type { RejectedReceipt } from "../../lib/core/ingest/record-receipt";

type RefusalKind = "client_error" | "aborted_body";
type Writer = (receipt: RejectedReceipt) => Promise<void>;
type State = { tokens: number; refilledAt: number; writer?: Writer };

const KEY = Symbol.for("keyhook.refused-requests");

function state(): State {
  const holder = globalThis as { [KEY]?: State };
  return (holder[KEY] ??= { tokens: env().REFUSED_RECEIPTS_PER_MINUTE, refilledAt: Date.now() });
}

/** Tests change REFUSED_RECEIPTS_PER_MINUTE between cases: a full bucket again. */
export function resetRefusedReceiptsForTests(): void {
  const bucket = state();
  bucket.tokens = env().REFUSED_RECEIPTS_PER_MINUTE;
  bucket.refilledAt = Date.now();
}

/** Registers what stores a receipt (called once per process, inside Next's bundle). */
export function onRefusedRequest(writer: Writer): void {
  state().writer = writer;
}

/** Takes one receipt slot: false (and counted as skipped) when this minute's are used up. */
export function admitRefusedReceipt(kind: RefusalKind, now = Date.now()): boolean {
  const perMinute = env().REFUSED_RECEIPTS_PER_MINUTE;
  const bucket = state();
  bucket.tokens = Math.min(perMinute, bucket.tokens + ((now - bucket.refilledAt) * perMinute) / 60_000);
  bucket.refilledAt = now;
  const admitted = bucket.tokens >= 1;
  if (admitted) bucket.tokens -= 1;
  metrics().refusedReceipts.inc({ kind, result: admitted ? "recorded" : "rate_limited" });
  return admitted;
}

/** A parser-level refusal: logged and counted, and stored when the bucket admits it. Never throws. */
export async function recordClientError(receipt: RejectedReceipt): Promise<void> {
  recordDelivery({ status: receipt.status, outcome: null });
  log.info("ingest rejected", { status: receipt.status, reason: "client_error", error: receipt.error });
  if (!admitRefusedReceipt("client_error")) return;
  try {
    const writer = state().writer;
    if (!writer) throw new Error("no receipt writer registered (instrumentation.ts has not run)");
    await writer(receipt);
  } catch (error) {
    log.error("could not store receipt", { status: receipt.status, error: describeError(error) });
  }
}
