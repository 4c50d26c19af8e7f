import "server-only";
// Open sequence gaps as the dashboard shows them (district page, overview), scoped to the actor.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { districtScope, tenantWhere } from "../../core/tenancy/district-scope";
import { getRetentionSettings } from "../../operations/retention/settings";

type OpenGap = {
  id: string;
  tenantId: string;
  fromSequence: number;
  toSequence: number;
  missing: number;
  firstNoticedAt: Date;
  /** Open longer than the provider's retry horizon: no retry will fill it (an alert is raised). */
  pastHorizon: boolean;
};

export async function listOpenGaps(
  options: { actor: Actor; tenantId?: string; limit?: number; now?: Date; retryHorizonHours?: number },
  db: DbOrTx = prisma,
): Promise<{ gaps: OpenGap[]; total: number }> {
  authorize(options.actor, "districts.view");
  const where = { closedAt: null, ...tenantWhere(districtScope(options.actor, options.tenantId)) };
  const now = options.now ?? new Date();
  const horizonHours = options.retryHorizonHours ?? (await getRetentionSettings(db)).retryHorizonHours;
  const cutoff = now.getTime() - horizonHours * 3_600_000;
  const [rows, total] = await Promise.all([
    db.sequenceGap.findMany({
      where,
      orderBy: [{ firstNoticedAt: "asc" }, { id: "asc" }],
      take: Math.min(options.limit ?? 20, 200),
    }),
    db.sequenceGap.count({ where }),
  ]);
  return {
    total,
    gaps: rows.map((g) => ({
      id: g.id.toString(),
      tenantId: g.tenantId,
      fromSequence: Number(g.fromSeq),
      toSequence: Number(g.toSeq),
      missing: Number(g.toSeq - g.fromSeq) + 1,
      firstNoticedAt: g.firstNoticedAt,
      pastHorizon: g.firstNoticedAt.getTime() < cutoff,
    })),
  };
}
