// The demo platform admin, and only it, in the run's database: the dashboard watch signs in as
// it. The full demo seed would add districts and keys the provider simulator knows nothing
// about, and the checker compares every key with the simulator's truth.
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/auth/demo-users";

export async function seedPlatformAdmin(databaseUrl: string): Promise<string> {
  process.env.DATABASE_URL = databaseUrl;
  const { prisma, disconnectDb } = await import("../lib/db");
  const { hashPassword } = await import("../lib/auth/passwords");
  const admin = DEMO_USERS.find((user) => user.role === "platform_admin")!;
  try {
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    await prisma.user.upsert({
      where: { email: admin.email },
      create: { ...admin, passwordHash },
      update: { passwordHash },
    });
  } finally {
    await disconnectDb();
  }
  return admin.email;
}
