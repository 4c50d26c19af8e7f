// The demo platform admin, and only it, in the run's database: the dashboard watch signs in as
// it. The full demo seed would add districts and keys the provider simulator knows nothing
// about, and the checker compares every key with the simulator's truth.
import { TEST_ENCRYPTION_KEYS } from "../test/support/encryption-keys";
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/operations/demo/demo-data";

export async function seedPlatformAdmin(databaseUrl: string): Promise<string> {
  process.env.DATABASE_URL = databaseUrl;
  // The factor's key is sealed here and opened by the app: both under the app's keys.
  process.env.SECRETS_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
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
