// The cron route as deployed: the app/ route module itself, with its bearer check.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/cron/purge/route";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { resetDatabase } from "../../support/state";
import { DAY_MS, insertClaims } from "../../support/ledger-rows";

const SECRET = "cron-secret-for-tests-0123456789";

function cronRequest(method: "GET" | "POST", authorization?: string): Request {
  const headers = new Headers();
  if (authorization !== undefined) headers.set("authorization", authorization);
  return new Request("http://keyhook.test/api/cron/purge", { method, headers });
}

function configure(secret: string | undefined) {
  if (secret === undefined) delete process.env.CRON_SECRET;
  else process.env.CRON_SECRET = secret;
  resetEnvForTests();
}

beforeEach(resetDatabase);
afterEach(() => configure(undefined));

describe("/api/cron/purge", () => {
  it("answers 503 'not configured' while CRON_SECRET is unset, and purges nothing", async () => {
    configure(undefined);
    const response = await POST(cronRequest("POST", `Bearer ${SECRET}`));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "the purge cron is not configured: set CRON_SECRET" });
    expect(await prisma.purgeRun.count()).toBe(0);
  });

  it("answers 401 to a missing, malformed or wrong token", async () => {
    configure(SECRET);
    for (const authorization of [
      undefined,
      "",
      SECRET,
      `Basic ${SECRET}`,
      `Bearer ${SECRET}x`,
      `Bearer ${SECRET.slice(0, -1)}`,
      "Bearer ",
    ]) {
      const response = await GET(cronRequest("GET", authorization));
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect(await response.json()).toEqual({ error: "missing or wrong bearer token" });
    }
    expect(await prisma.purgeRun.count()).toBe(0);
  });

  it("runs the purge for the right token, by GET (Vercel cron) or POST, and records the trigger", async () => {
    configure(SECRET);
    await insertClaims({ count: 3, receivedAt: new Date(Date.now() - 20 * DAY_MS) });

    const byGet = await GET(cronRequest("GET", `Bearer ${SECRET}`));
    const byPost = await POST(cronRequest("POST", `bearer ${SECRET}`));

    expect(byGet.status).toBe(200);
    const body = (await byGet.json()) as { run: Record<string, unknown> };
    expect(body.run).toMatchObject({ trigger: "cron", status: "ran", claimsDeleted: 3, receiptsDeleted: 3 });
    expect(byPost.status).toBe(200);
    expect(await prisma.purgeRun.count({ where: { trigger: "cron" } })).toBe(2);
  });
});
