import "server-only";
// Changes a user's role and district. It takes effect on the user's next request, since loadActor
// re-reads the row; the session cookie carries only the user id.
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor, type Role } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { districtForRole, districtSchema, findUserOrThrow, parseOrThrow, roleSchema } from "./user-fields";

type UpdatedUser = { userId: string; email: string; role: Role; tenantId: string | null };

export async function updateUser(
  options: { actor: Actor; userId: string; role: string; tenantId: string },
  db: DbOrTx = prisma,
): Promise<UpdatedUser> {
  authorize(options.actor, "users.manage");
  const role = parseOrThrow(roleSchema, options.role, "role");
  const requestedDistrict = parseOrThrow(districtSchema, options.tenantId, "tenantId");
  // Demoting yourself would take this page away from you mid-task, and could leave no platform
  // admin at all. Every other platform admin can be demoted, since the actor remains one.
  if (options.userId === options.actor.id && role !== "platform_admin")
    throw new AppError("conflict", "you cannot change your own role");
  return db.$transaction(async (tx) => {
    const user = await findUserOrThrow(options.userId, tx);
    const tenantId = await districtForRole(role, requestedDistrict, tx);
    await tx.user.update({ where: { id: user.id }, data: { role, tenantId } });
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "user.update",
        tenantId: tenantId ?? user.tenantId,
        target: user.email,
        outcome: "ok",
        details: { userId: user.id, before: { role: user.role, tenantId: user.tenantId }, after: { role, tenantId } },
      },
      tx,
    );
    return { userId: user.id, email: user.email, role, tenantId };
  });
}
