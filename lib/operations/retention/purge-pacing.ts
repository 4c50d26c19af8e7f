// How big the next purge batch is and how long the purge rests after one (docs/decisions/0008).
//
// Measured at 10M rows (bench/purge-scale.ts): what raises ingest's p99 is not a lock ingest waits
// on (the purge only touches rows older than the window, ingest only inserts new ones) but the
// purge's share of the machine — CPU, buffer I/O and above all WAL: every ingest commit flushes
// the WAL up to its own commit record, purge records included, so a purge writing WAL as fast as
// it can makes every commit of that moment wait for it. So the purge is paced, not fixed:
//   - batch size follows a target batch duration (short transactions, short bursts), within
//     [minRows, maxRows];
//   - after each batch it rests `restFactor` times as long as the batch took (a duty cycle of at
//     most 1 / (1 + restFactor) of one connection), and at least as long as its WAL budget needs:
//     a batch that wrote W bytes is followed by W / walBytesPerSecond of quiet, which also keeps a
//     streaming replica's lag and the checkpoints' full-page writes bounded;
//   - the payload clear walks its day `payloadPasses` times, each pass taking the rows with
//     `id % payloadPasses = pass`. Clearing a payload writes a new, shorter row version; it is a
//     HOT update (one small WAL record, no index entries) only while that version fits on the
//     row's own page. At fillfactor 75 a page's free quarter holds the new versions of about a
//     third of its rows; between passes, on-page pruning frees the old versions the previous pass
//     left, so the next third fits too. One pass over dense pages writes most clears as non-HOT
//     updates (an entry in each index, most of them full-page images); three passes keep them
//     HOT (the WAL per row of each: docs/decisions/0014).
// Pure functions: the loop in run-purge.ts feeds them what each batch measured.

export type PurgePacing = {
  /** Rows in the first batch and the bounds of every later one. */
  initialRows: number;
  minRows: number;
  maxRows: number;
  /** The batch duration the size adapts towards. */
  targetBatchMs: number;
  /** Rest after a batch = restFactor × its duration (at least). */
  restFactor: number;
  /** WAL the purge may write per second on average (its batches' WAL, ingest's during them included). */
  walBytesPerSecond: number;
  /** Never rest longer than this after one batch (a huge batch must not stall the run for minutes). */
  maxRestMs: number;
  /** Interleaved passes of the payload clear (1 = one walk clearing every row). */
  payloadPasses: number;
};

export const DEFAULT_PURGE_PACING: PurgePacing = {
  initialRows: 1_000,
  minRows: 100,
  maxRows: 5_000,
  targetBatchMs: 40,
  // 4 and 5 s (were 3 and 2 s, decision 0008): a duty cycle of at most a fifth, chosen from
  // bench:purge's interleaved slices at 10M rows (ingest's p99 beside the purge: docs/decisions/0014).
  restFactor: 4,
  walBytesPerSecond: 8 * 1024 * 1024,
  maxRestMs: 5_000,
  payloadPasses: 3,
};

type BatchMeasure = { rows: number; durationMs: number; walBytes: number };

/** The next batch's size: proportional to how far the last one was from the target, at most ×2 / ÷2 a step. */
export function nextBatchRows(pacing: PurgePacing, current: number, last: BatchMeasure): number {
  const ratio = pacing.targetBatchMs / Math.max(last.durationMs, 1);
  const scaled = Math.round(current * Math.min(2, Math.max(0.5, ratio)));
  return Math.min(pacing.maxRows, Math.max(pacing.minRows, scaled));
}

/** How long to rest after a batch: its duty-cycle share or its WAL budget, whichever is longer. */
export function restAfterBatchMs(pacing: PurgePacing, last: BatchMeasure): number {
  const dutyCycle = last.durationMs * pacing.restFactor;
  const walBudget = (Math.max(0, last.walBytes) / pacing.walBytesPerSecond) * 1000 - last.durationMs;
  return Math.round(Math.min(pacing.maxRestMs, Math.max(dutyCycle, walBudget, 0)));
}
