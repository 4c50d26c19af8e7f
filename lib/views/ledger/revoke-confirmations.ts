import "server-only";
// Which key.revoked events confirm a revoke WE asked the provider for: the key carries the time
// we asked (api_keys.revoke_requested_at), and the provider's revoke arrived after it. A
// structured fact, so the timeline never has to read the ingest's free-text reason.
import { prisma, type DbOrTx } from "../../core/db/client";

type RevokeEvent = { tenantId: string; type: string; keyId: string | null; outcome: string; receivedAt: Date };

export async function withRevokeConfirmations<E extends RevokeEvent>(
  events: E[],
  db: DbOrTx = prisma,
): Promise<(E & { confirmsOurRevoke: boolean })[]> {
  const revokes = events.filter((e) => e.type === "key.revoked" && e.outcome === "applied" && e.keyId);
  const keys = revokes.length
    ? await db.apiKey.findMany({
        where: { OR: revokes.map((e) => ({ id: e.keyId!, tenantId: e.tenantId })), revokeRequestedAt: { not: null } },
        select: { id: true, tenantId: true, revokeRequestedAt: true },
      })
    : [];
  const requestedAt = new Map(keys.map((k) => [`${k.tenantId}\u0000${k.id}`, k.revokeRequestedAt!]));
  return events.map((event) => {
    const asked = event.keyId ? requestedAt.get(`${event.tenantId}\u0000${event.keyId}`) : undefined;
    return { ...event, confirmsOurRevoke: revokes.includes(event) && !!asked && event.receivedAt >= asked };
  });
}
