import "server-only";
// The audit log as JSON lines, with its hashes, for `npm run audit:verify` (docs/audit.md): every
// entry kept, in seq order, as stored (no filters: a filtered chain cannot verify); and the signed
// checkpoints kept, oldest first. The CSV export stays the one for people.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { readAuditCheckpoints, readAuditPage } from "../../core/audit/read-audit-chain";

export async function* auditChainLines(options: { actor: Actor }, db: DbOrTx = prisma): AsyncGenerator<string> {
  authorize(options.actor, "audit.export");
  let after = 0n;
  for (;;) {
    const page = await readAuditPage({ afterSeq: after }, db);
    if (page.length === 0) return;
    yield page.map((entry) => JSON.stringify(entry) + "\n").join("");
    after = BigInt(page[page.length - 1]!.seq);
  }
}

export async function* auditCheckpointLines(options: { actor: Actor }, db: DbOrTx = prisma): AsyncGenerator<string> {
  authorize(options.actor, "audit.export");
  for (const checkpoint of await readAuditCheckpoints(db)) yield JSON.stringify(checkpoint) + "\n";
}
