import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/health/route";
import { prisma } from "@/lib/db";

describe("GET /api/health", () => {
  it("answers 200 when the database is reachable and every migration is applied", async () => {
    const response = await GET();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, database: "up", migrations: "current" });
  });

  it("answers 503 naming the migration that is not applied", async () => {
    const [last] = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`;
    await prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = ${last!.migration_name}`;
    try {
      const response = await GET();
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ ok: false, database: "up", migrations: "pending", detail: last!.migration_name });
    } finally {
      await prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = ${last!.migration_name}`;
    }
  });
});
