// Every role × every data-access function behind a page, action or route × own and other
// district → the expected allow or deny. The pages, actions and routes call exactly these
// functions with the signed-in actor, so a deny here is a deny in the browser.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { Actor, Role } from "@/lib/core/auth/actor";
import { isAppError } from "@/lib/core/errors";
import { auditCsvLines } from "@/lib/views/audit/audit-csv-lines";
import { listAudit } from "@/lib/views/audit/list-audit";
import { bulkRedeliver } from "@/lib/views/deliveries/bulk-redeliver";
import { listDeliveries } from "@/lib/views/deliveries/list-deliveries";
import type { DeliveryProvider } from "@/lib/operations/provider/provider-for-dashboard";
import { replayStoredEvent } from "@/lib/operations/redelivery/replay-stored-event";
import { requestRedelivery } from "@/lib/operations/redelivery/request-redelivery";
import { getDistrict } from "@/lib/views/districts/get-district";
import { issueKey } from "@/lib/core/keys/issue-key";
import { listDistricts } from "@/lib/views/districts/list-districts";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { rotateKey } from "@/lib/core/keys/rotate-key";
import { getLedgerEvent } from "@/lib/views/ledger/get-ledger-event";
import { ledgerCsvLines } from "@/lib/views/ledger/ledger-csv-lines";
import { listLedger } from "@/lib/views/ledger/list-ledger";
import { getOverview } from "@/lib/views/overview/get-overview";
import { getRetentionView } from "@/lib/views/retention/retention-view";
import { updateRetentionSettings } from "@/lib/operations/retention/settings";
import { listQuarantine } from "@/lib/views/quarantine/list-quarantine";
import { resolveQuarantinedEvent } from "@/lib/operations/quarantine/resolve-quarantined-event";
import type { ProviderClient } from "@/lib/operations/provider/client";
import { HOOK_ID_SETTING } from "@/lib/operations/provider/webhook-registration";
import { getPlatformSettings, type ReachabilityProbe } from "@/lib/views/settings/get-platform-settings";
import { registerWebhook } from "@/lib/operations/provider/register-webhook";
import { createUser } from "@/lib/operations/users/create-user";
import { listUsers } from "@/lib/views/users/list-users";
import { disableUser, enableUser } from "@/lib/operations/users/set-user-disabled";
import { unlockUser } from "@/lib/operations/users/unlock-user";
import { updateUser } from "@/lib/operations/users/update-user";
import { acknowledgeAlert } from "@/lib/operations/alerts/act-on-alert";
import { getAlert } from "@/lib/views/alerts/get-alert";
import { listAlerts } from "@/lib/views/alerts/list-alerts";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { requestDriftCheck } from "@/lib/operations/drift/request-drift-check";
import { resetUserFactors } from "@/lib/operations/users/reset-user-factors";
import { listOwnFactors } from "@/lib/views/account/list-own-factors";
import {
  removeOwnFactor,
  renewRecoveryCodes,
  startPasskeyEnrolment,
  startTotpEnrolment,
} from "@/lib/core/auth/mfa/manage-own-factors";
import { ledgerIdOf, OTHER, OWN, seedTwoDistricts, type Actors } from "../support/dashboard-fixtures";

type Verdict = "allow" | "deny";
type Which = "own" | "other";

const provider = {
  listDeliveries: async () => ({ items: [], nextCursor: null }),
  redeliver: async () => ({ accepted: true as const }),
  getWebhook: async () => null,
} satisfies DeliveryProvider & ReachabilityProbe;

// Registration answers like the provider would; only platform admins may get this far.
const registeringClient = {
  registerWebhook: async (input: { url: string }) => ({ hookId: "hook_test", url: input.url, createdAt: new Date() }),
  getWebhook: async () => null,
} as unknown as ProviderClient;

async function drain(lines: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const line of lines) out += line;
  return out;
}

const tenantOf = (which: Which) => (which === "own" ? OWN : OTHER);
const everyone = () => "allow" as Verdict;
const staffOnly = (role: Role) => (role === "district_admin" ? "deny" : "allow");
const platformOnly = (role: Role) => (role === "platform_admin" ? "allow" : "deny");
const ownDistrictOrStaff = (role: Role, which: Which): Verdict =>
  role === "district_admin" && which === "other" ? "deny" : "allow";
const revokers = (role: Role, which: Which): Verdict => (role === "support" ? "deny" : ownDistrictOrStaff(role, which));

const cases: {
  name: string;
  expected: (role: Role, which: Which) => Verdict;
  run: (actor: Actor, which: Which) => Promise<unknown>;
}[] = [
  { name: "overview", expected: everyone, run: (actor) => getOverview({ actor }) },
  { name: "districts list", expected: everyone, run: (actor) => listDistricts({ actor }) },
  {
    name: "district page",
    expected: ownDistrictOrStaff,
    run: (actor, w) => getDistrict({ actor, tenantId: tenantOf(w) }),
  },
  {
    name: "ledger filtered by district",
    expected: ownDistrictOrStaff,
    run: (actor, w) => listLedger({ actor, filters: { tenantId: tenantOf(w) } }),
  },
  {
    name: "ledger event by id",
    expected: ownDistrictOrStaff,
    run: async (actor, w) => getLedgerEvent({ actor, id: await ledgerIdOf(tenantOf(w), `evt_${tenantOf(w)}_1`) }),
  },
  {
    name: "ledger CSV export",
    expected: ownDistrictOrStaff,
    run: (actor, w) => drain(ledgerCsvLines({ actor, filters: { tenantId: tenantOf(w) } })),
  },
  { name: "revoke key", expected: revokers, run: (actor, w) => revokeKey({ actor, keyId: `key_${tenantOf(w)}_2` }) },
  {
    name: "issue key",
    expected: platformOnly,
    run: (actor, w) =>
      issueKey({
        actor,
        tenantId: tenantOf(w),
        scopes: ["rosters:read"],
        requestToken: randomBytes(8).toString("hex"),
      }),
  },
  {
    name: "rotate key",
    expected: platformOnly,
    run: (actor, w) =>
      rotateKey({ actor, keyId: `key_${tenantOf(w)}_2` }).catch((e) => {
        if (isAppError(e, "conflict")) return "conflict";
        throw e;
      }),
  },
  {
    name: "deliveries",
    expected: staffOnly,
    run: (actor) => listDeliveries({ actor, since: new Date(Date.now() - 86_400_000), until: new Date(), provider }),
  },
  {
    name: "replay stored payload",
    expected: staffOnly,
    run: (actor, w) => replayStoredEvent({ actor, tenantId: tenantOf(w), eventId: `evt_${tenantOf(w)}_1` }),
  },
  {
    name: "ask provider to redeliver",
    expected: staffOnly,
    run: (actor, w) =>
      requestRedelivery({
        actor,
        deliveryId: "dlv_1",
        eventId: `evt_${tenantOf(w)}_1`,
        tenantId: tenantOf(w),
        provider,
      }),
  },
  {
    name: "bulk replay dry run",
    expected: staffOnly,
    run: (actor) =>
      bulkRedeliver({
        actor,
        filters: { since: new Date(Date.now() - 3_600_000), until: new Date(), openEnded: false, status: "all" },
        dryRun: true,
        provider,
      }),
  },
  { name: "quarantine list", expected: staffOnly, run: (actor) => listQuarantine({ actor }) },
  {
    name: "resolve quarantined event",
    expected: (role) => staffOnly(role),
    run: async (actor, w) =>
      resolveQuarantinedEvent({
        actor,
        id: await ledgerIdOf(tenantOf(w), `evt_${tenantOf(w)}_q`),
        resolution: "dismissed",
      }),
  },
  { name: "retention page", expected: staffOnly, run: (actor) => getRetentionView({ actor }) },
  {
    name: "retention settings",
    expected: platformOnly,
    run: (actor) => updateRetentionSettings({ actor, retentionDays: 14, retryHorizonHours: 28 }),
  },
  { name: "audit log", expected: staffOnly, run: (actor) => listAudit({ actor, filters: {} }) },
  { name: "audit CSV export", expected: staffOnly, run: (actor) => drain(auditCsvLines({ actor, filters: {} })) },
  // Users: the target is a throwaway account, never one of the acting users.
  { name: "users list", expected: platformOnly, run: (actor) => listUsers({ actor }) },
  {
    name: "create user",
    expected: platformOnly,
    run: (actor, w) =>
      createUser({
        actor,
        email: `new-${randomBytes(6).toString("hex")}@x.test`,
        name: "",
        role: "district_admin",
        tenantId: tenantOf(w),
      }),
  },
  { name: "disable user", expected: platformOnly, run: (actor) => disableUser({ actor, userId: targetUserId }) },
  { name: "enable user", expected: platformOnly, run: (actor) => enableUser({ actor, userId: targetUserId }) },
  { name: "unlock user", expected: platformOnly, run: (actor) => unlockUser({ actor, userId: targetUserId }) },
  {
    name: "change user role",
    expected: platformOnly,
    run: (actor, w) => updateUser({ actor, userId: targetUserId, role: "district_admin", tenantId: tenantOf(w) }),
  },
  { name: "settings page", expected: platformOnly, run: (actor) => getPlatformSettings({ actor, probe: provider }) },
  {
    name: "register webhook",
    expected: platformOnly,
    run: (actor) => registerWebhook({ actor, client: registeringClient }),
  },
  { name: "alerts list", expected: everyone, run: (actor) => listAlerts({ actor }) },
  {
    name: "alert detail",
    expected: ownDistrictOrStaff,
    run: async (actor, w) => getAlert({ actor, id: await alertIdOf(tenantOf(w)) }),
  },
  {
    name: "acknowledge alert",
    expected: ownDistrictOrStaff,
    run: async (actor, w) => acknowledgeAlert({ actor, id: await alertIdOf(tenantOf(w)) }),
  },
  { name: "request drift check", expected: platformOnly, run: (actor) => requestDriftCheck({ actor }) },
  // Second factors: one's own for everyone (a conflict, e.g. codes without a factor, got past
  // the check), another person's reset for platform admins only, never one not theirs.
  {
    name: "reset another user's factors",
    expected: platformOnly,
    run: (actor) => resetUserFactors({ actor, userId: targetUserId }),
  },
  { name: "account security page", expected: everyone, run: (actor) => listOwnFactors({ actor }) },
  { name: "start an authenticator app", expected: everyone, run: (actor) => startTotpEnrolment({ actor }) },
  { name: "start a passkey", expected: everyone, run: (actor) => startPasskeyEnrolment({ actor }) },
  {
    name: "new recovery codes",
    expected: everyone,
    run: (actor) =>
      renewRecoveryCodes({ actor }).catch((e) => {
        if (isAppError(e, "conflict")) return "conflict";
        throw e;
      }),
  },
  {
    name: "remove another person's factor",
    expected: () => "deny",
    run: (actor) => removeOwnFactor({ actor, factorId: targetFactorId }),
  },
];

async function alertIdOf(tenantId: string): Promise<string> {
  const alert = await prisma.alert.findFirstOrThrow({ where: { tenantId, kind: "superseded_key" } });
  return String(alert.id);
}

let actors: Actors;
let targetUserId: string;
let targetFactorId: string;
beforeAll(async () => {
  actors = await seedTwoDistricts();
  targetUserId = (
    await prisma.user.create({ data: { email: "target@own.test", role: "district_admin", tenantId: OWN } })
  ).id;
  targetFactorId = (
    await prisma.mfaFactor.create({
      data: { userId: targetUserId, kind: "totp", label: "theirs", totpSecret: "x", confirmedAt: new Date() },
    })
  ).id;
  await prisma.setting.create({ data: { key: HOOK_ID_SETTING, value: "hook_test" } });
  for (const tenantId of [OWN, OTHER])
    await raiseAlert({ kind: "superseded_key", subject: `api_keys/${tenantId}-matrix`, tenantId, now: new Date() });
});

describe("authorization matrix", () => {
  it("every role × function × district gets exactly the expected allow or deny", async () => {
    const roles: [Role, () => Actor][] = [
      ["district_admin", () => actors.districtAdmin],
      ["support", () => actors.support],
      ["platform_admin", () => actors.platformAdmin],
    ];
    const unexpected: string[] = [];
    let checked = 0;
    for (const testCase of cases) {
      for (const [role, actor] of roles) {
        for (const which of ["own", "other"] as const) {
          const expected = testCase.expected(role, which);
          let actual: Verdict;
          try {
            await testCase.run(actor(), which);
            actual = "allow";
          } catch (error) {
            if (isAppError(error, "not_found") || isAppError(error, "forbidden")) actual = "deny";
            else throw error;
          }
          checked++;
          if (actual !== expected)
            unexpected.push(`${role} ${testCase.name} (${which} district): expected ${expected}, got ${actual}`);
        }
      }
    }
    expect(unexpected).toEqual([]);
    expect(checked).toBe(cases.length * 6);
  });

  it("a district admin's lists never contain another district's rows", async () => {
    const actor = actors.districtAdmin;
    expect((await listDistricts({ actor })).map((d) => d.id)).toEqual([OWN]);
    const ledger = await listLedger({ actor, filters: {} });
    expect(ledger.rows.length).toBeGreaterThan(0);
    expect(new Set(ledger.rows.map((r) => r.tenantId))).toEqual(new Set([OWN]));
    const csv = await drain(ledgerCsvLines({ actor, filters: {} }));
    expect(csv).toContain(OWN);
    expect(csv).not.toContain(`,${OTHER},`);
    const overview = await getOverview({ actor });
    expect(overview.ledgerRows).toBe(await prisma.processedEvent.count({ where: { tenantId: OWN } }));
    // An event id shared by name across districts still resolves only inside the own district.
    const otherId = await ledgerIdOf(OTHER, `evt_${OTHER}_1`);
    await expect(getLedgerEvent({ actor, id: otherId })).rejects.toMatchObject({ code: "not_found" });
  });

  it("a denied revoke changes nothing and stages no provider call", async () => {
    const before = await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${OTHER}_1` } });
    await expect(revokeKey({ actor: actors.districtAdmin, keyId: `key_${OTHER}_1` })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(revokeKey({ actor: actors.support, keyId: `key_${OTHER}_1` })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${OTHER}_1` } })).toEqual(before);
    expect(await prisma.outboxMessage.count({ where: { idempotencyKey: `revoke:key_${OTHER}_1` } })).toBe(0);
  });

  it("denied user management changes no account and creates none", async () => {
    const before = await prisma.user.findMany({ orderBy: { id: "asc" } });
    for (const actor of [actors.districtAdmin, actors.support]) {
      await expect(disableUser({ actor, userId: actors.platformAdmin.id })).rejects.toMatchObject({
        code: "not_found",
      });
      await expect(updateUser({ actor, userId: actor.id, role: "platform_admin", tenantId: "" })).rejects.toMatchObject(
        { code: "not_found" },
      );
      await expect(
        createUser({ actor, email: "sneaky@x.test", name: "", role: "platform_admin", tenantId: "" }),
      ).rejects.toMatchObject({ code: "not_found" });
    }
    expect(await prisma.user.findMany({ orderBy: { id: "asc" } })).toEqual(before);
  });
});
