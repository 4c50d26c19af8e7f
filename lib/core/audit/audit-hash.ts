// The audit log's hash chain (docs/audit.md, decision 0033), as pure functions: the app hashes an
// entry's content when it appends it, PostgreSQL links it to the chain in the same statement
// (prisma/sql/keyhook_audit_chain_append.sql), and the offline verifier recomputes both from an
// export. No imports beyond node:crypto and `canonicalize`: `npm run audit:verify` runs this file
// without a database or the app's settings.
//
//   content = SHA-256(RFC 8785 JSON of {action, actor, actor_id, details, outcome, target, tenant_id})
//   hash    = SHA-256(RFC 8785 JSON of {at, content, id, prev, seq})     (hex strings; ids as strings)
//
// The link's object has only ASCII strings, so PostgreSQL writes its canonical form by plain
// concatenation; test/core/audit/audit-chain.integration.test.ts compares the two.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** The `prev` of the first entry there ever was. */
export const GENESIS_HASH = "0".repeat(64);

/** What the app writes; everything the content hash covers. */
export type AuditContent = {
  actor_id: string | null;
  actor: string;
  action: string;
  tenant_id: string | null;
  target: string | null;
  outcome: string;
  details: unknown;
};

/** One entry as the JSON-lines export writes it (and the audit stream sends it). */
export type ChainedAuditEntry = AuditContent & {
  id: string;
  seq: string;
  at: string;
  prev_hash: string;
  hash: string;
};

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("cannot encode the audit entry as JSON");
  return text;
}

/**
 * The details as PostgreSQL's jsonb will give them back: what JSON.stringify keeps (no undefined,
 * Dates as strings). Hashing this form is what lets an export verify.
 */
export function storedDetails(details: unknown): unknown {
  return details === undefined || details === null ? null : JSON.parse(JSON.stringify(details));
}

export function contentHash(content: AuditContent): string {
  return sha256Hex(
    canonical({
      action: content.action,
      actor: content.actor,
      actor_id: content.actor_id,
      details: content.details ?? null,
      outcome: content.outcome,
      target: content.target,
      tenant_id: content.tenant_id,
    }),
  );
}

export function linkHash(link: { at: string; content: string; id: string; prev: string; seq: string }): string {
  return sha256Hex(canonical({ at: link.at, content: link.content, id: link.id, prev: link.prev, seq: link.seq }));
}

/** The hash an exported entry must carry, from its own fields and the previous entry's hash. */
export function expectedHash(entry: ChainedAuditEntry, prev: string, seq = entry.seq): string {
  return linkHash({ at: entry.at, content: contentHash(entry), id: entry.id, prev, seq });
}
