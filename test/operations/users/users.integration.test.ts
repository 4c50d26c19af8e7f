// User management by a platform admin: a created user can sign in, a disabled one loses access on
// the next request, nobody can lock themselves out, and bad input is a form error, not a crash.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { loadActor } from "@/lib/core/auth/load-actor";
import { FREE_ATTEMPTS } from "@/lib/core/auth/sign-in-throttle";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { createUser, DUPLICATE_EMAIL } from "@/lib/operations/users/create-user";
import { listUsers } from "@/lib/views/users/list-users";
import { disableUser, enableUser } from "@/lib/operations/users/set-user-disabled";
import { unlockUser } from "@/lib/operations/users/unlock-user";
import { updateUser } from "@/lib/operations/users/update-user";
import { resetDatabase } from "../../support/state";

const DISTRICT = "district-a";
const password = "a long initial password";
let admin: Actor;

beforeEach(async () => {
  await resetDatabase();
  await prisma.tenant.create({ data: { id: DISTRICT, name: "District A" } });
  const row = await prisma.user.create({ data: { email: "root@keyhook.test", role: "platform_admin" } });
  admin = { id: row.id, email: row.email, name: null, role: "platform_admin", tenantId: null };
});

const newDistrictAdmin = (overrides: Partial<Parameters<typeof createUser>[0]> = {}) =>
  createUser({
    actor: admin,
    email: "New.Admin@District-A.test ",
    name: "New Admin",
    role: "district_admin",
    tenantId: DISTRICT,
    password,
    ...overrides,
  });

async function auditActions(): Promise<string[]> {
  return (await prisma.auditLog.findMany({ where: { action: { startsWith: "user." } }, orderBy: { id: "asc" } })).map(
    (a) => `${a.action}:${a.outcome}`,
  );
}

describe("createUser", () => {
  it("creates a user who can sign in through verifyCredentials, and audits it", async () => {
    const created = await newDistrictAdmin();
    expect(created).toMatchObject({
      email: "new.admin@district-a.test",
      role: "district_admin",
      tenantId: DISTRICT,
      generatedPassword: null,
    });
    const signIn = await verifyCredentials({ email: "new.admin@district-a.test", password });
    expect(signIn).toMatchObject({ ok: true, actor: { id: created.id, role: "district_admin", tenantId: DISTRICT } });
    const entry = await prisma.auditLog.findFirstOrThrow({ where: { action: "user.create" } });
    expect(entry).toMatchObject({ actorId: admin.id, target: created.email, tenantId: DISTRICT, outcome: "ok" });
    // The password itself never reaches the audit log.
    expect(JSON.stringify(entry.details)).not.toContain(password);
  });

  it("generates a password when none is given, returns it once, and it works", async () => {
    const created = await createUser({
      actor: admin,
      email: "support2@keyhook.test",
      name: "",
      role: "support",
      tenantId: "",
    });
    expect(created.generatedPassword!.length).toBeGreaterThanOrEqual(12);
    expect(await verifyCredentials({ email: created.email, password: created.generatedPassword! })).toMatchObject({
      ok: true,
    });
    const stored = await prisma.user.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.passwordHash).not.toContain(created.generatedPassword!);
  });

  it("refuses a second user with the same email, whatever its case", async () => {
    await newDistrictAdmin();
    await expect(newDistrictAdmin({ email: "NEW.ADMIN@district-a.test" })).rejects.toMatchObject({
      code: "conflict",
      publicMessage: DUPLICATE_EMAIL,
    });
    expect(await prisma.user.count()).toBe(2);
  });

  it.each([
    [{ email: "not-an-email" }, "enter a valid email address"],
    [{ password: "too short" }, "the password must be at least 12 characters"],
    [{ password: "x".repeat(73) }, "the password must be at most 72 bytes"],
    [{ role: "superuser" }, "role must be district admin, support or platform admin"],
    [{ tenantId: "" }, "a district admin needs a district"],
    [{ tenantId: "district-nowhere" }, "district district-nowhere does not exist"],
    [{ role: "support" }, "only a district admin is assigned a district; leave District empty for staff"],
  ])("refuses invalid input %j with a message for the form", async (overrides, message) => {
    await expect(newDistrictAdmin(overrides)).rejects.toMatchObject({ code: "bad_request", publicMessage: message });
    expect(await prisma.user.count()).toBe(1);
    expect(await auditActions()).toEqual([]);
  });
});

describe("disable, enable, unlock, change role", () => {
  it("a disabled user is refused on their next request and at sign-in; re-enabled, they are back", async () => {
    const { id, email } = await newDistrictAdmin();
    expect(await loadActor(id)).toMatchObject({ id });
    expect(await disableUser({ actor: admin, userId: id })).toMatchObject({ changed: true });
    expect(await loadActor(id)).toBeNull();
    expect(await verifyCredentials({ email, password })).toMatchObject({ ok: false, reason: "disabled" });
    expect(await disableUser({ actor: admin, userId: id })).toMatchObject({ changed: false });
    expect((await listUsers({ actor: admin })).users.find((u) => u.id === id)?.status.kind).toBe("disabled");

    expect(await enableUser({ actor: admin, userId: id })).toMatchObject({ changed: true });
    expect(await loadActor(id)).toMatchObject({ id });
    expect(await auditActions()).toEqual([
      "user.create:ok",
      "user.disable:ok",
      "user.disable:already_disabled",
      "user.enable:ok",
    ]);
  });

  it("a platform admin cannot disable or demote themselves, and nothing changes", async () => {
    await expect(disableUser({ actor: admin, userId: admin.id })).rejects.toMatchObject({
      code: "conflict",
      publicMessage: "you cannot disable your own account",
    });
    await expect(updateUser({ actor: admin, userId: admin.id, role: "support", tenantId: "" })).rejects.toMatchObject({
      code: "conflict",
      publicMessage: "you cannot change your own role",
    });
    expect(await loadActor(admin.id)).toMatchObject({ role: "platform_admin" });
    expect(await auditActions()).toEqual([]);
  });

  it("a role change applies on the next request and keeps the district rule", async () => {
    const { id } = await newDistrictAdmin();
    await expect(updateUser({ actor: admin, userId: id, role: "support", tenantId: DISTRICT })).rejects.toMatchObject({
      code: "bad_request",
    });
    await updateUser({ actor: admin, userId: id, role: "support", tenantId: "" });
    expect(await loadActor(id)).toMatchObject({ role: "support", tenantId: null });
    const entry = await prisma.auditLog.findFirstOrThrow({ where: { action: "user.update" } });
    expect(entry.details).toMatchObject({
      before: { role: "district_admin", tenantId: DISTRICT },
      after: { role: "support", tenantId: null },
    });
  });

  it("resetting a lockout lets the user sign in at once", async () => {
    const { id, email } = await newDistrictAdmin();
    const now = new Date();
    for (let i = 0; i < FREE_ATTEMPTS; i++) await verifyCredentials({ email, password: "wrong password!", now });
    expect(await verifyCredentials({ email, password, now })).toMatchObject({ ok: false, reason: "locked" });
    expect((await listUsers({ actor: admin, now })).users.find((u) => u.id === id)?.status.kind).toBe("locked");

    await unlockUser({ actor: admin, userId: id });
    expect(await verifyCredentials({ email, password, now })).toMatchObject({ ok: true });
    expect(await prisma.auditLog.findFirstOrThrow({ where: { action: "user.unlock" } })).toMatchObject({
      target: email,
      outcome: "ok",
    });
  });

  it("an unknown user id is not found", async () => {
    await expect(disableUser({ actor: admin, userId: "nobody" })).rejects.toMatchObject({ code: "not_found" });
    await expect(unlockUser({ actor: admin, userId: "" })).rejects.toMatchObject({ code: "not_found" });
  });
});
