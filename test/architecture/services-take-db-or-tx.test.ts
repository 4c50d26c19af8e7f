// Services take `db: DbOrTx = prisma`, so a caller can run them inside its own transaction
// (db.$transaction on a transaction handle is a savepoint: they compose). The few that take
// `Db` own their transactions, and this list says why; a new one must be added here, with a reason.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

const OWN_TRANSACTIONS: Record<string, string> = {
  "lib/core/ingest/apply-key-event.ts":
    "the ingest is ONE transaction of its own (its timeout, transaction-local settings): its answer means committed",
  "lib/core/ingest/ingest-event.ts": "runs applyKeyEvent",
  "lib/operations/demo/seed-demo-data.ts": "seeds through applyKeyEvent",
  "lib/operations/retention/run-purge.ts": "commits batch by batch (bounded locks and WAL) under a lease of its own",
  "lib/operations/retention/scheduled-purge.ts": "runs runPurge",
  "lib/operations/rollups/record-late-answer.ts":
    "waits for another transaction's late COMMIT, holding the counts' watermark, for minutes: never inside a caller's",
  "lib/operations/rollups/fold-rollups.ts":
    "its two-step watermark waits out transactions older than the mark: a caller's open one would be among them",
  "lib/operations/alerts/sweep-quarantine.ts": "the same two-step watermark as fold-rollups.ts",
  "lib/operations/worker/sweep-alerts.ts": "runs sweepQuarantine",
  "lib/operations/outbox/process-outbox.ts": "never holds a transaction across a provider call",
  "lib/operations/outbox/drain-outbox.ts": "runs processOutbox",
  "lib/operations/drift/run-drift-check.ts": "commits its progress after every provider page, between provider calls",
  "lib/operations/drift/drift-job.ts": "runs runDriftCheck",
  "lib/operations/readiness/run-readiness.ts":
    "its deliveries go through the running app, which must see its committed rows",
  "lib/operations/secrets/stored-secrets.ts":
    "re-seals each channel in a transaction of its own, so a rotation stopped half-way keeps what it did",
  "lib/operations/readiness/types.ts": "the readiness steps' context, handed out by run-readiness.ts",
  "lib/core/audit/seal-audit-chain.ts": "holds the audit chain's head row lock for the one transaction that seals",
  "lib/operations/audit/checkpoint-audit-log.ts":
    "signs in a transaction of its own, so the checkpoint chains to the newest one committed",
  "lib/operations/audit/verify-live-audit-log.ts": "reads the whole log in one REPEATABLE READ snapshot of its own",
  "lib/operations/audit/stream-audit-log.ts": "never holds a transaction across a send to the audit stream",
  "lib/operations/recovery/recover-from-provider.ts":
    "never holds a transaction across a provider call; its redeliveries go through the running app, which must see its committed rows; runs runDriftCheck",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = path.posix.join(dir, entry);
    if (entry === "generated") return [];
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry) ? [relative] : [];
  });
}

describe("services take DbOrTx", () => {
  it("only the services that own their transactions take Db, each for a stated reason", () => {
    const takingDb = sourceFiles("lib").filter((file) =>
      /\bdb\??:\s*Db\b/.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(takingDb.sort()).toEqual(Object.keys(OWN_TRANSACTIONS).sort());
  });
});
