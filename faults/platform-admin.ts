// The demo platform admin, and only it, in the run's database: the dashboard watch signs in as
// it. The full demo seed would add districts and keys the provider simulator knows nothing
// about, and the checker compares every key with the simulator's truth.
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/operations/demo/demo-data";

export async function seedPlatformAdmin(databaseUrl: string): Promise<string> {
  process.env.DATABASE_URL = databaseUrl;
  const { prisma, disconnectDb } = await import("../lib/core/db/client");
  const { hashPassword } = await import("../lib/core/auth/passwords");
  const admin = DEMO_USERS.find((user) => user.role === "platform_admin")!;
  try {
    const { enrolDemoTotp } = await import("../lib/operations/demo/seed-demo-users");
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    const row = await prisma.user.upsert({
      where: { email: admin.email },
      create: { ...admin, passwordHash },
      update: { passwordHash },
    });
    // Its second factor: signInCookie answers with codes of the demo key.
    await enrolDemoTotp(row.id);
  } finally {
    await disconnectDb();
  }
  return admin.email;
}
