import { describe, expect, it } from "vitest";
import { DEFAULT_PURGE_PACING, nextBatchRows, restAfterBatchMs } from "@/lib/operations/retention/purge-pacing";

const pacing = { ...DEFAULT_PURGE_PACING, targetBatchMs: 40, minRows: 100, maxRows: 5_000, restFactor: 3 };
const MiB = 1024 * 1024;

describe("purge pacing", () => {
  it("shrinks a batch that took longer than the target and grows one that was quick, at most 2x a step", () => {
    expect(nextBatchRows(pacing, 1_000, { rows: 1_000, durationMs: 80, walBytes: 0 })).toBe(500);
    expect(nextBatchRows(pacing, 1_000, { rows: 1_000, durationMs: 400, walBytes: 0 })).toBe(500);
    expect(nextBatchRows(pacing, 1_000, { rows: 1_000, durationMs: 20, walBytes: 0 })).toBe(2_000);
    expect(nextBatchRows(pacing, 1_000, { rows: 1_000, durationMs: 1, walBytes: 0 })).toBe(2_000);
    expect(nextBatchRows(pacing, 1_000, { rows: 1_000, durationMs: 50, walBytes: 0 })).toBe(800);
  });

  it("stays within its bounds", () => {
    expect(nextBatchRows(pacing, 150, { rows: 150, durationMs: 1_000, walBytes: 0 })).toBe(100);
    expect(nextBatchRows(pacing, 4_000, { rows: 4_000, durationMs: 1, walBytes: 0 })).toBe(5_000);
  });

  it("rests the batch's duration times the rest factor, or longer when its WAL needs it", () => {
    expect(restAfterBatchMs(pacing, { rows: 1_000, durationMs: 40, walBytes: 0 })).toBe(120);
    // 4 MiB of WAL at 4 MiB/s = 1 s in all, 40 ms of it spent in the batch.
    expect(
      restAfterBatchMs({ ...pacing, walBytesPerSecond: 4 * MiB }, { rows: 1_000, durationMs: 40, walBytes: 4 * MiB }),
    ).toBe(960);
    expect(restAfterBatchMs({ ...pacing, maxRestMs: 500 }, { rows: 1_000, durationMs: 40, walBytes: 64 * MiB })).toBe(
      500,
    );
  });
});
