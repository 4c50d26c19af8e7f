import "server-only";
// Gives the entries written before the hash chain existed their hashes (and any written while
// they waited): the migration numbered them (seq) in the Audit log page's order and left the head
// row's hash NULL, because their content hashes need the app's RFC 8785 encoding. Runs once, under
// the head row's lock (new entries wait for it), through the one UPDATE path the append-only
// trigger leaves for it (keyhook.audit_sealing). The worker calls it before every checkpoint.
import { prisma, type Db } from "../db/client";
import { contentHash, GENESIS_HASH, linkHash, storedDetails, type AuditContent } from "./audit-hash";

const PAGE = 2_000;

type Row = AuditContent & { id: bigint; seq: bigint; at: Date; content_hash: string | null };

export async function sealAuditChain(db: Db = prisma): Promise<{ sealed: number }> {
  const head = await db.auditChainHead.findUnique({ where: { id: true }, select: { hash: true } });
  if (!head || head.hash !== null) return { sealed: 0 };
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT set_config('keyhook.audit_sealing', 'on', true)`;
      const [locked] = await tx.$queryRaw<{ hash: Uint8Array | null }[]>`
        SELECT hash FROM audit_chain_head WHERE id FOR UPDATE`;
      if (!locked || locked.hash !== null) return { sealed: 0 };
      const [before] = await tx.$queryRaw<{ hash: string | null }[]>`
        SELECT encode(hash, 'hex') AS hash FROM audit_log
        WHERE seq < (SELECT min(seq) FROM audit_log WHERE hash IS NULL) ORDER BY seq DESC LIMIT 1`;
      let prev = before?.hash ?? GENESIS_HASH;
      let after = 0n;
      let sealed = 0;
      for (;;) {
        const rows = await tx.$queryRaw<Row[]>`
          SELECT id, seq, at, actor_id, actor, action, tenant_id, target, outcome, details,
                 encode(content_hash, 'hex') AS content_hash
          FROM audit_log WHERE hash IS NULL AND seq > ${after} ORDER BY seq LIMIT ${PAGE}`;
        if (rows.length === 0) break;
        const ids: string[] = [];
        const contents: string[] = [];
        const prevs: string[] = [];
        const hashes: string[] = [];
        for (const row of rows) {
          const content = row.content_hash ?? contentHash({ ...row, details: storedDetails(row.details) });
          const hash = linkHash({
            at: row.at.toISOString(),
            content,
            id: row.id.toString(),
            prev,
            seq: row.seq.toString(),
          });
          ids.push(row.id.toString());
          contents.push(content);
          prevs.push(prev);
          hashes.push(hash);
          prev = hash;
        }
        await tx.$executeRaw`
          UPDATE audit_log a SET content_hash = decode(u.content, 'hex'), prev_hash = decode(u.prev, 'hex'), hash = decode(u.hash, 'hex')
          FROM unnest(${ids}::bigint[], ${contents}::text[], ${prevs}::text[], ${hashes}::text[]) AS u(id, content, prev, hash)
          WHERE a.id = u.id`;
        sealed += rows.length;
        after = rows[rows.length - 1]!.seq;
      }
      await tx.$executeRaw`UPDATE audit_chain_head SET hash = decode(${prev}, 'hex') WHERE id`;
      return { sealed };
    },
    { timeout: 600_000 },
  );
}
