import "server-only";
// The question behind every two-step watermark over a sequence-numbered table (the rollups'
// fold, lib/operations/rollups/fold-rollups.ts, explains the scheme; the quarantine sweep uses it too): is
// a transaction that started at or before `since` still open in this database? Only then can a
// row with an id handed out before `since` still commit.
//
// Only client sessions count: they are the ones that insert. Autovacuum's workers also show in
// pg_stat_activity with a transaction open, for minutes on a big table right after a bulk load
// or a purge, and counting them held every fold back while the pages counted the unfolded rows
// live (a plan test caught it: a sequential scan of the whole tail).
import type { Tx } from "./client";

export async function writersStillOpen(tx: Tx, since: Date): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ open: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND backend_type = 'client backend'
        AND xact_start IS NOT NULL AND xact_start <= ${since}::timestamptz) AS open`;
  return row!.open;
}
