// The audit log's first page shows what people changed, not a wall of sign-ins; its filters are
// groups in people's words, and one action by its name still works (links from elsewhere).
import { beforeEach, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { recordAudit } from "@/lib/core/audit/record-audit";
import { parseAuditFilters } from "@/lib/views/audit/audit-filters";
import { listAudit } from "@/lib/views/audit/list-audit";
import { resetDatabase } from "../../support/state";

const support: Actor = { id: "u1", email: "support@x.test", name: null, role: "support", tenantId: null };
const who = { id: "u1", label: "support@x.test (support)" };

beforeEach(async () => {
  await resetDatabase();
  for (let i = 0; i < 60; i++) await recordAudit({ actor: who, action: "sign-in", outcome: "ok" });
  await recordAudit({ actor: who, action: "settings.update", outcome: "ok" });
  await recordAudit({ actor: who, action: "key.issue", outcome: "requested" });
  await recordAudit({ actor: who, action: "key.issue", outcome: "refused" });
  for (let i = 0; i < 3; i++) await recordAudit({ actor: who, action: "sign-out", outcome: "ok" });
});

const actions = async (query: Record<string, string>) =>
  (await listAudit({ actor: support, filters: parseAuditFilters(query).filters })).rows.map(
    (r) => `${r.action} ${r.outcome}`,
  );

it("the first page leaves sign-ins out; 'Sign-ins' and 'Everything' bring them back", async () => {
  expect(await actions({})).toEqual(["key.issue refused", "key.issue requested", "settings.update ok"]);
  expect((await actions({ action: "signins" })).length).toBe(50);
  expect((await actions({ action: "all" }))[0]).toBe("sign-out ok");
  expect(await prisma.auditLog.count()).toBe(66);
});

it("groups in people's words, an outcome group, and one action by its name", async () => {
  expect(await actions({ action: "settings" })).toEqual(["settings.update ok"]);
  expect(await actions({ action: "keys", outcome: "refused" })).toEqual(["key.issue refused"]);
  expect(await actions({ action: "key.issue", outcome: "waiting" })).toEqual(["key.issue requested"]);
});
