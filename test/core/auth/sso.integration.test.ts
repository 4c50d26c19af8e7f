// Single sign-on against a real OpenID Provider started here (node-oidc-provider). The browser
// part of the code flow is driven headless (test/support/oidc-provider.ts), the code is redeemed
// and the ID token validated by openid-client exactly as next-auth does, and the result goes
// through our provider's `profile` and `signIn` callbacks from auth.ts. Not driven: next-auth's
// own HTTP routes (state/PKCE cookies) around them.
import { generators, Issuer } from "openid-client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { resolveOidcProfile } from "@/lib/core/auth/resolve-oidc-profile";
import { resetDatabase } from "../../support/state";
import { authorizeAs, startOidcProvider, type TestAccount } from "../../support/oidc-provider";

const port = Number(process.env.E2E_OIDC_PORT ?? 4752);
const redirectUri = "http://127.0.0.1:4750/api/auth/callback/oidc";
const clientId = "keyhook";
const clientSecret = "keyhook-test-client-secret";
const adminEmail = "admin@district-4417.test";

const accounts: Record<string, TestAccount> = {
  "no-claim": { email: adminEmail }, // the case a review found: no email_verified at all
  unverified: { email: adminEmail, email_verified: false },
  "string-true": { email: adminEmail, email_verified: "true" },
  verified: { email: adminEmail, email_verified: true, name: "Maple" },
  "userinfo-only": { email: adminEmail, email_verified: true, userinfoOnly: true },
  "userinfo-unverified": { email: adminEmail, userinfoOnly: true },
  stranger: { email: "nobody@elsewhere.test", email_verified: true },
  staff: { email: "admin@keyhook.test", email_verified: true },
};

let oidc: Awaited<ReturnType<typeof startOidcProvider>>;

beforeAll(async () => {
  oidc = await startOidcProvider({ port, clientId, clientSecret, redirectUri, accounts });
  // OIDC_WITHOUT_MFA=refuse: only accounts that must have a factor are affected (the district
  // admin of the other cases holds none and its role does not require one).
  Object.assign(process.env, {
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: clientId,
    OIDC_CLIENT_SECRET: clientSecret,
    OIDC_WITHOUT_MFA: "refuse",
  });
  resetEnvForTests();
});
afterAll(() => oidc?.stop());

beforeEach(async () => {
  await resetDatabase();
  await prisma.tenant.create({ data: { id: "district-4417" } });
  await prisma.user.create({ data: { email: adminEmail, role: "district_admin", tenantId: "district-4417" } });
});

type OAuthProvider = { id: string; profile: (claims: unknown, tokens: unknown) => Promise<Record<string, unknown>> };

/** The whole code flow for one account, then our auth.ts callbacks: true, or where signIn sends the user. */
async function ssoAs(
  accountId: string,
  /** What the identity provider would add to the ID token (amr/acr: this provider's login sets none). */
  extraClaims: Record<string, unknown> = {},
): Promise<{
  decision: unknown;
  user: Record<string, unknown>;
  claims: Record<string, unknown>;
  accessToken?: string;
  userinfoEndpoint?: string;
}> {
  const issuer = await Issuer.discover(oidc.issuer);
  const client = new issuer.Client({
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [redirectUri],
    response_types: ["code"],
  });
  const state = generators.state();
  const verifier = generators.codeVerifier();
  const url = client.authorizationUrl({
    scope: "openid email profile",
    state,
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: "S256",
  });
  const callback = await authorizeAs(url, accountId, redirectUri);
  const tokens = await client.callback(redirectUri, client.callbackParams(callback.href), {
    state,
    code_verifier: verifier,
  });

  const { authOptions } = await import("@/auth");
  const options = authOptions();
  const provider = options.providers.find((p) => p.id === "oidc") as unknown as OAuthProvider;
  const user = await provider.profile(tokens.claims(), tokens);
  const decision = await options.callbacks!.signIn!({
    user: user as never,
    account: { provider: "oidc", type: "oauth", providerAccountId: accountId },
    profile: { ...tokens.claims(), ...extraClaims } as never,
  });
  return {
    decision,
    user,
    claims: tokens.claims(),
    accessToken: tokens.access_token,
    userinfoEndpoint: issuer.metadata.userinfo_endpoint,
  };
}

describe("SSO with a local OpenID Provider", () => {
  it("refuses an ID token without email_verified (and with false, or a string) and audits why", async () => {
    for (const account of ["no-claim", "unverified", "string-true"]) {
      const { decision } = await ssoAs(account);
      expect(decision, account).toBe("/signin?error=AccessDenied");
    }
    const audit = await prisma.auditLog.findMany({ where: { action: "sign-in", outcome: "denied" } });
    expect(audit).toHaveLength(3);
    expect(audit.every((row) => (row.details as { reason: string }).reason === "email not verified")).toBe(true);
  });

  it("accepts a verified email", async () => {
    const { decision, user } = await ssoAs("verified");
    expect(decision).toBe(true);
    expect(user).toMatchObject({ email: adminEmail, emailTrusted: true });
  });

  it("reads the email from userinfo when the ID token has none, and accepts it only when verified", async () => {
    const fromUserinfo = await ssoAs("userinfo-only");
    expect(fromUserinfo.claims.email).toBeUndefined(); // really absent from the ID token
    expect(fromUserinfo.decision).toBe(true);
    expect(fromUserinfo.user).toMatchObject({ email: adminEmail, emailTrusted: true });
    expect((await ssoAs("userinfo-unverified")).decision).toBe("/signin?error=AccessDenied");
  });

  it("trusts the issuer's emails only when the deployment says so (OIDC_TRUST_ISSUER_EMAILS=1)", async () => {
    const { claims, accessToken, userinfoEndpoint } = await ssoAs("no-claim");
    expect(await resolveOidcProfile({ claims, accessToken, userinfoEndpoint, trustIssuerEmails: false })).toMatchObject(
      { ok: false, reason: "email not verified" },
    );
    expect(await resolveOidcProfile({ claims, accessToken, userinfoEndpoint, trustIssuerEmails: true })).toMatchObject({
      ok: true,
      email: adminEmail,
    });
  });

  it("refuses a verified email nobody has here", async () => {
    expect((await ssoAs("stranger")).decision).toBe("/signin?error=AccessDenied");
  });

  it("OIDC_WITHOUT_MFA=refuse: a staff sign-in without the identity provider's MFA is refused; with amr mfa its factor counts", async () => {
    await prisma.user.create({ data: { email: "admin@keyhook.test", role: "platform_admin" } });
    expect((await ssoAs("staff")).decision).toBe("/signin?error=SsoMfaRequired");
    expect((await ssoAs("staff", { amr: ["pwd", "otp"] })).decision).toBe(true);
    const { authOptions } = await import("@/auth");
    const token = await authOptions().callbacks!.jwt!({
      token: {},
      user: { id: "x", email: "admin@keyhook.test" } as never,
      account: { provider: "oidc", type: "oauth", providerAccountId: "staff" },
      profile: { amr: ["mfa"] } as never,
    });
    expect(token).toMatchObject({ sso: true, fa: expect.any(Number) });
    const denied = await prisma.auditLog.findFirstOrThrow({ where: { action: "sign-in", outcome: "denied" } });
    expect(denied.details).toMatchObject({ reason: "no MFA at the identity provider" });
  });
});
