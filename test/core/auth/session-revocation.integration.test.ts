// An old session cookie is refused after sign-out, disable (and stays refused after re-enable),
// role, district and password change. The cookie is made and read by next-auth itself (its JWT
// encode/decode and our jwt/session callbacks, as the route handler and getServerSession do);
// the lib services change the user as the Users page does.
import { decode, encode } from "next-auth/jwt";
import { beforeEach, describe, expect, it } from "vitest";
import { authOptions } from "@/auth";
import { authSecret } from "@/auth-cookies";
import { actorOfSession } from "@/app/_lib/session";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { endedSessionReason } from "@/lib/core/auth/load-actor";
import { hashPassword } from "@/lib/core/auth/passwords";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { disableUser, enableUser } from "@/lib/operations/users/set-user-disabled";
import { updateUser } from "@/lib/operations/users/update-user";
import { resetDatabase } from "../../support/state";

const password = "correct horse battery";
let userId: string;
let admin: Actor;

beforeEach(async () => {
  await resetDatabase();
  for (const id of ["district-a", "district-b"]) await prisma.tenant.create({ data: { id } });
  userId = (
    await prisma.user.create({
      data: {
        email: "da@x.test",
        role: "district_admin",
        tenantId: "district-a",
        passwordHash: await hashPassword(password),
      },
    })
  ).id;
  const row = await prisma.user.create({ data: { email: "root@x.test", role: "platform_admin" } });
  admin = { id: row.id, email: row.email, name: null, role: "platform_admin", tenantId: null };
});

type Authorize = (
  credentials: Record<string, string>,
  req: { headers: Record<string, string> },
) => Promise<{ id: string } | null>;

/** Signs in through the Credentials provider and returns the session cookie's value. */
async function signIn(): Promise<string> {
  const options = authOptions();
  const provider = options.providers[0] as unknown as { options: { authorize: Authorize } };
  const user = await provider.options.authorize(
    { email: "da@x.test", password },
    { headers: { "x-forwarded-for": "192.0.2.1" } },
  );
  const token = await options.callbacks!.jwt!({
    token: {},
    user: user as never,
    account: { provider: "credentials", type: "credentials", providerAccountId: user!.id },
  });
  // As if its second factor was proven too: a role that must have one (support) would otherwise
  // be a session waiting at enrolment, which is nobody (test/core/auth/second-factor.integration.test.ts).
  return encode({ token: { ...token, fa: Date.now() }, secret: authSecret() });
}

async function actorOf(cookie: string): Promise<Actor | null> {
  const token = await decode({ token: cookie, secret: authSecret() });
  expect(token).not.toBeNull(); // the cookie itself stays cryptographically valid: it is the version that ends it
  const session = await authOptions().callbacks!.session!({
    session: { user: {}, expires: "" },
    token: token!,
    user: undefined as never,
    newSession: undefined,
    trigger: "update",
  });
  return actorOfSession(session);
}

describe("session revocation", () => {
  it("sign-out ends every session of the user; a new sign-in works", async () => {
    const laptop = await signIn();
    const phone = await signIn();
    expect(await actorOf(laptop)).toMatchObject({ id: userId });
    await authOptions().events!.signOut!({
      token: (await decode({ token: laptop, secret: authSecret() }))!,
      session: undefined as never,
    });
    expect(await actorOf(laptop)).toBeNull();
    expect(await actorOf(phone)).toBeNull();
    expect(await actorOf(await signIn())).toMatchObject({ id: userId });
    expect(await prisma.auditLog.count({ where: { action: "sign-out", actorId: userId } })).toBe(1);
  });

  it("disable ends it, and re-enabling does not revive the old cookie", async () => {
    const cookie = await signIn();
    await disableUser({ actor: admin, userId });
    expect(await actorOf(cookie)).toBeNull();
    await enableUser({ actor: admin, userId });
    expect(await actorOf(cookie)).toBeNull();
    expect(await actorOf(await signIn())).toMatchObject({ id: userId });
  });

  it("the holder of an ended session is told why (disabled, or changed); the sign-in form is not", async () => {
    const cookie = await signIn();
    const reasonOf = async (value: string) => {
      const token = (await decode({ token: value, secret: authSecret() }))!;
      return endedSessionReason(token.sub, token.sv as number);
    };
    expect(await reasonOf(cookie)).toBeNull();
    await disableUser({ actor: admin, userId });
    expect(await reasonOf(cookie)).toBe("disabled");
    // Signing in with the right password is refused like any other refusal: nothing says "disabled".
    expect(await verifyCredentials({ email: "da@x.test", password, address: "192.0.2.9" })).toMatchObject({
      ok: false,
      code: "InvalidCredentials",
    });
    await enableUser({ actor: admin, userId });
    expect(await reasonOf(cookie)).toBe("changed");
  });

  it("a role change or a district change ends it", async () => {
    const before = await signIn();
    await updateUser({ actor: admin, userId, role: "support", tenantId: "" });
    expect(await actorOf(before)).toBeNull();
    const asSupport = await signIn();
    expect(await actorOf(asSupport)).toMatchObject({ role: "support" });
    await updateUser({ actor: admin, userId, role: "district_admin", tenantId: "district-b" });
    expect(await actorOf(asSupport)).toBeNull();
    const inB = await signIn();
    expect(await actorOf(inB)).toMatchObject({ tenantId: "district-b" });
    await updateUser({ actor: admin, userId, role: "district_admin", tenantId: "district-a" });
    expect(await actorOf(inB)).toBeNull();
  });

  it("a password change ends it; unrelated writes (a failed sign-in, an unlock) do not", async () => {
    const cookie = await signIn();
    await prisma.user.update({ where: { id: userId }, data: { failedLogins: 3, lastLoginAt: new Date() } });
    expect(await actorOf(cookie)).toMatchObject({ id: userId });
    await prisma.user.update({ where: { id: userId }, data: { passwordHash: await hashPassword("a new password") } });
    expect(await actorOf(cookie)).toBeNull();
  });

  it("a cookie without a session version (issued before this change) is refused", async () => {
    const token = await encode({ token: { sub: userId }, secret: authSecret() });
    expect(await actorOf(token)).toBeNull();
  });
});
