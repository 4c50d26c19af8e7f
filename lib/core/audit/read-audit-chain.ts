import "server-only";
// The audit chain as it is stored, in seq order, one page at a time: what the JSON-lines export
// writes, the nightly check verifies and the audit stream sends. The details are the stored ones
// (the Audit log page adds a failed-sign-in window's count at display time; this never does).
import { prisma, type DbOrTx } from "../db/client";
import type { ChainedAuditEntry } from "./audit-hash";
import type { SignedCheckpoint } from "./audit-checkpoint";

const PAGE = 1_000;

export async function readAuditPage(
  options: { afterSeq: bigint; limit?: number },
  db: DbOrTx = prisma,
): Promise<ChainedAuditEntry[]> {
  return db.$queryRaw<ChainedAuditEntry[]>`
    SELECT id::text AS id, seq::text AS seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
           actor_id, actor, action, tenant_id, target, outcome, details,
           coalesce(encode(prev_hash, 'hex'), '') AS prev_hash, coalesce(encode(hash, 'hex'), '') AS hash
    FROM audit_log WHERE seq > ${options.afterSeq} ORDER BY audit_log.seq LIMIT ${options.limit ?? PAGE}`;
}

export async function* readAuditChain(db: DbOrTx = prisma): AsyncGenerator<ChainedAuditEntry> {
  let after = 0n;
  for (;;) {
    const page = await readAuditPage({ afterSeq: after }, db);
    yield* page;
    if (page.length < PAGE) return;
    after = BigInt(page[page.length - 1]!.seq);
  }
}

/** Every checkpoint kept, oldest first. */
export async function readAuditCheckpoints(db: DbOrTx = prisma): Promise<SignedCheckpoint[]> {
  return db.$queryRaw<
    SignedCheckpoint[]
  >`SELECT id::text AS id, body, signature FROM audit_checkpoints ORDER BY audit_checkpoints.id`;
}
