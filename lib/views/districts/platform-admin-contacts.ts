import "server-only";
// Whom a district admin asks for what their role may not do (issue or rotate a key): the enabled
// platform admins, by name and email. A handful is enough to reach one.
import { prisma, type DbOrTx } from "../../core/db/client";

export type Contact = { name: string | null; email: string };

export async function platformAdminContacts(db: DbOrTx = prisma, limit = 3): Promise<Contact[]> {
  return db.user.findMany({
    where: { role: "platform_admin", disabledAt: null },
    orderBy: { email: "asc" },
    take: limit,
    select: { name: true, email: true },
  });
}
