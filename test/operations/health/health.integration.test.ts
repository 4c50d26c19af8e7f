import { describe, expect, it } from "vitest";
import { GET as live } from "@/app/api/health/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { checkReadiness } from "@/lib/operations/health/check-health";
import { prisma } from "@/lib/core/db/client";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { PrismaPg } from "@prisma/adapter-pg";

// What an unauthenticated answer must never contain: a host, a port, an error class or text.
const leaks = /127\.0\.0\.1|localhost|:\d{2,5}\b|\b\d{4,5}\b|Error|ECONN|refused|prisma|postgres/i;

describe("GET /api/health (liveness)", () => {
  it("answers 200 without touching the database", async () => {
    const response = await live();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});

describe("GET /api/health/ready (readiness)", () => {
  it("answers 200 when the database is reachable and every migration is applied", async () => {
    const response = await ready();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, database: "up", migrations: "current" });
  });

  it("answers 503 'pending' when a migration is not applied, without naming it", async () => {
    const [last] = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`;
    await prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = ${last!.migration_name}`;
    try {
      const response = await ready();
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ ok: false, database: "up", migrations: "pending" });
      expect(text).not.toContain(last!.migration_name);
    } finally {
      await prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = ${last!.migration_name}`;
    }
  });

  it("answers 'down' with no host, port, error class or text when the database is unreachable", async () => {
    // A port nothing listens on (the test server's port + 47, inside this checkout's range).
    const url = new URL(process.env.DATABASE_URL!);
    url.port = String(Number(url.port) + 47);
    const unreachable = new PrismaClient({
      adapter: new PrismaPg({ connectionString: url.toString(), connectionTimeoutMillis: 2_000 }),
    });
    try {
      const answer = await checkReadiness(unreachable);
      expect(answer).toEqual({ ok: false, database: "down", migrations: "unknown" });
      expect(JSON.stringify(answer)).not.toMatch(leaks);
    } finally {
      await unreachable.$disconnect();
    }
  });
});
