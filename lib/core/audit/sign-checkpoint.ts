import "server-only";
// Signs a checkpoint of the audit chain as it stands in the caller's transaction (docs/audit.md):
// the worker's hourly one, and the purge's, inside the very transaction that moved the log's
// start, so no moment exists where entries are gone and no signed checkpoint names the new start.
// Checkpoints chain to each other, so their signers queue on one transaction-scoped advisory lock
// (taken first: a checkpoint must follow the newest one committed). Works on Prisma and on the
// purge's own pg connection alike, through `run`.
import { auditSigningKeys } from "./audit-signing-key";
import { CHECKPOINT_FORMAT, checkpointHash, signCheckpoint, type CheckpointBody } from "./audit-checkpoint";
import { AppError } from "../errors";

type SqlRunner = <T>(sql: string, values?: unknown[]) => Promise<T[]>;

/** 'k','h','a','c': a constant of our own, distinct from the purge's and the migrations'. */
const CHECKPOINT_LOCK_KEY = 0x6b686163;

export type CheckpointReason = "hourly" | "purge" | "manual";

export async function signAuditCheckpoint(
  options: { reason: CheckpointReason; now: Date },
  run: SqlRunner,
): Promise<{ id: bigint; body: CheckpointBody; text: string }> {
  await run(`SELECT 1 AS locked FROM pg_advisory_xact_lock(${CHECKPOINT_LOCK_KEY})`);
  // One statement, one snapshot: the head and the first entry kept.
  const [state] = await run<{ seq: string; head: string | null; first_seq: string | null; first_prev: string | null }>(
    `SELECT h.seq::text AS seq, encode(h.hash, 'hex') AS head,
            f.seq::text AS first_seq, encode(f.prev_hash, 'hex') AS first_prev
     FROM audit_chain_head h
     LEFT JOIN LATERAL (SELECT seq, prev_hash FROM audit_log ORDER BY seq LIMIT 1) f ON true`,
  );
  if (!state?.head)
    throw new AppError("conflict", "the audit chain is not sealed yet: entries from before it await their hashes");
  const empty = state.first_seq === null;
  const [last] = await run<{ body: string }>(`SELECT body FROM audit_checkpoints ORDER BY id DESC LIMIT 1`);
  const key = auditSigningKeys()[0]!;
  const body: CheckpointBody = {
    format: CHECKPOINT_FORMAT,
    reason: options.reason,
    at: options.now.toISOString(),
    seq: state.seq,
    head: state.head,
    first_seq: empty ? (BigInt(state.seq) + 1n).toString() : state.first_seq!,
    first_prev: empty ? state.head : state.first_prev!,
    previous: last ? checkpointHash(last.body) : null,
    key_id: key.id,
  };
  const signed = signCheckpoint(body, key.privateKey);
  const [row] = await run<{ id: bigint }>(
    `INSERT INTO audit_checkpoints (at, reason, seq, first_seq, head, key_id, body, signature)
     VALUES ($1::timestamptz, $2, $3::bigint, $4::bigint, $5, $6, $7, $8) RETURNING id`,
    [options.now, body.reason, body.seq, body.first_seq, body.head, body.key_id, signed.body, signed.signature],
  );
  return { id: BigInt(row!.id), body, text: signed.body };
}
