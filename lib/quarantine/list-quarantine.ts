import "server-only";
// What needs a human: quarantined events not yet resolved, and superseded keys (a possibly-live
// credential nobody revoked: docs/design.md, invariant 4).
import { prisma, type DbOrTx } from "../db";
import { tenantScope, type Actor } from "../auth/actor";
import { authorize } from "../auth/permissions";

export type QuarantinedEvent = {
  id: bigint;
  tenantId: string;
  eventId: string;
  type: string;
  keyId: string | null;
  reason: string | null;
  receivedAt: Date;
};

export type SupersededKey = {
  id: string;
  tenantId: string;
  prefix: string | null;
  supersededAt: Date | null;
  supersededByKeyId: string | null;
};

export async function listQuarantine(
  options: { actor: Actor; limit?: number },
  db: DbOrTx = prisma,
): Promise<{ events: QuarantinedEvent[]; supersededKeys: SupersededKey[] }> {
  authorize(options.actor, "quarantine.view");
  const tenantId = tenantScope(options.actor);
  const where = tenantId ? { tenantId } : {};
  const [events, supersededKeys] = await Promise.all([
    db.processedEvent.findMany({
      where: { ...where, outcome: "quarantined", resolvedAt: null },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: options.limit ?? 200,
      select: { id: true, tenantId: true, eventId: true, type: true, keyId: true, reason: true, receivedAt: true },
    }),
    db.apiKey.findMany({
      where: { ...where, status: "superseded" },
      orderBy: [{ supersededAt: "desc" }, { id: "asc" }],
      take: options.limit ?? 200,
      select: { id: true, tenantId: true, prefix: true, supersededAt: true, supersededByKeyId: true },
    }),
  ]);
  return { events, supersededKeys };
}
