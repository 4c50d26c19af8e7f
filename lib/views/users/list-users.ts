import "server-only";
// The Users page: every account with its sign-in state, and the districts a user can be put in.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { secondsUntilUnlocked } from "../../core/auth/sign-in-throttle";

export type UserStatus = { kind: "active" } | { kind: "disabled"; since: Date } | { kind: "locked"; until: Date };

export type UserView = {
  id: string;
  email: string;
  name: string | null;
  role: string;
  tenantId: string | null;
  status: UserStatus;
  failedLogins: number;
  lastLoginAt: Date | null;
  /** Confirmed second factors. */
  factors: number;
};

function statusOf(user: { disabledAt: Date | null; lockedUntil: Date | null }, now: Date): UserStatus {
  if (user.disabledAt) return { kind: "disabled", since: user.disabledAt };
  if (user.lockedUntil && secondsUntilUnlocked(user.lockedUntil, now) > 0)
    return { kind: "locked", until: user.lockedUntil };
  return { kind: "active" };
}

export async function listUsers(options: { actor: Actor; now?: Date }, db: DbOrTx = prisma) {
  authorize(options.actor, "users.view");
  const now = options.now ?? new Date();
  const [users, districts] = await Promise.all([
    db.user.findMany({
      orderBy: { email: "asc" },
      take: 1000,
      include: { _count: { select: { factors: { where: { confirmedAt: { not: null } } } } } },
    }),
    db.tenant.findMany({ orderBy: { id: "asc" }, select: { id: true, name: true } }),
  ]);
  const views: UserView[] = users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    tenantId: u.tenantId,
    status: statusOf(u, now),
    failedLogins: u.failedLogins,
    lastLoginAt: u.lastLoginAt,
    factors: u._count.factors,
  }));
  return { users: views, districts };
}
