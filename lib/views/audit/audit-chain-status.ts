import "server-only";
// What the Audit log page says about the hash chain (docs/audit.md): the nightly check's last
// verdict ("verified up to …" or the break), the newest signed checkpoint, and where the public
// key is published.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { lastAuditVerification, type StoredVerification } from "../../operations/audit/verify-live-audit-log";

type AuditChainStatus = {
  verification: StoredVerification | null;
  newestCheckpoint: { id: bigint; at: Date; seq: bigint } | null;
};

export async function getAuditChainStatus(options: { actor: Actor }, db: DbOrTx = prisma): Promise<AuditChainStatus> {
  authorize(options.actor, "audit.view");
  const [verification, newestCheckpoint] = await Promise.all([
    lastAuditVerification(db),
    db.auditCheckpoint.findFirst({ orderBy: { id: "desc" }, select: { id: true, at: true, seq: true } }),
  ]);
  return { verification, newestCheckpoint };
}
