// 200 failed sign-ins from one client cannot flood the append-only audit log: one row per
// subject (the account, or the client address for unknown emails) per window, with the count
// shown on the audit page and in the CSV.
import { beforeEach, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { auditCsvLines } from "@/lib/views/audit/audit-csv-lines";
import { listAudit } from "@/lib/views/audit/list-audit";
import { SIGN_IN_FAILURE_WINDOW_MINUTES } from "@/lib/core/audit/record-sign-in-failure";
import type { Actor } from "@/lib/core/auth/actor";
import { hashPassword } from "@/lib/core/auth/passwords";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { resetDatabase } from "../../support/state";

let staff: Actor;

beforeEach(async () => {
  await resetDatabase();
  await prisma.user.create({
    data: { email: "target@x.test", role: "support", passwordHash: await hashPassword("right password") },
  });
  const row = await prisma.user.create({ data: { email: "auditor@x.test", role: "support" } });
  staff = { id: row.id, email: row.email, name: null, role: "support", tenantId: null };
});

it("200 failures → 2 audit rows (one per subject per window) carrying the right counts", async () => {
  const now = new Date("2026-12-01T10:01:00Z");
  // In waves of 20 concurrent attempts: the first failure of a window must audit exactly once.
  for (let wave = 0; wave < 10; wave++) {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? verifyCredentials({ email: "target@x.test", password: `guess ${wave}-${i}`, address: "198.51.100.7", now })
          : verifyCredentials({ email: `nobody-${wave}-${i}@x.test`, password: "x", address: "198.51.100.7", now }),
      ),
    );
  }
  const rows = await prisma.auditLog.findMany({ where: { action: "sign-in" } });
  expect(rows).toHaveLength(2);
  const counters = await prisma.signInFailure.findMany({ orderBy: { subject: "asc" } });
  expect(counters.map((c) => [c.subject.split(":")[0], c.count])).toEqual([
    ["address", 100],
    ["user", 100],
  ]);
  expect(counters.reduce((sum, c) => sum + c.count, 0)).toBe(200);

  const page = await listAudit({ actor: staff, filters: { action: "signins" } });
  expect(page.rows.map((r) => (r.details as { failures?: number }).failures).sort()).toEqual([100, 100]);
  let csv = "";
  for await (const chunk of auditCsvLines({ actor: staff, filters: { action: "signins" } })) csv += chunk;
  expect(csv.match(/""failures"":100/g)).toHaveLength(2);

  // The next window starts a new row and a new count.
  const later = new Date(now.getTime() + SIGN_IN_FAILURE_WINDOW_MINUTES * 60_000);
  await verifyCredentials({ email: "nobody-else@x.test", password: "x", address: "198.51.100.8", now: later });
  expect(await prisma.auditLog.count({ where: { action: "sign-in" } })).toBe(3);
});
