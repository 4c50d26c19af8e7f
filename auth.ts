import "server-only";
// next-auth 4 configuration: Credentials (scrypt, throttled, audited) and, when configured, one
// OIDC provider. Sessions are JWTs in an HttpOnly cookie naming the user and the session version
// it was issued under: every page, action and route re-reads the user (app/_lib/session.ts) and
// refuses another version, so sign-out, disabling an account or changing a role, district or
// password ends every existing session on its next request.
import type { NextAuthOptions, Session } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getToken, type JWT } from "next-auth/jwt";
import { recordAudit } from "@/lib/core/audit/record-audit";
import { actorLabel, type Actor } from "@/lib/core/auth/actor";
import { clientAddress } from "@/lib/core/auth/client-address";
import { currentSessionVersion, endAllSessions, findActorByEmail, loadActor } from "@/lib/core/auth/load-actor";
import { holdsFactor } from "@/lib/core/auth/mfa/factor-facts";
import { factorRequired } from "@/lib/core/auth/mfa/mfa-policy";
import { proveFactor, type FactorProof } from "@/lib/core/auth/mfa/prove-factor";
import { ssoDidMfa } from "@/lib/core/auth/mfa/sso-mfa";
import { resolveOidcProfile, userinfoEndpointOf, type OidcClaims } from "@/lib/core/auth/resolve-oidc-profile";
import { SIGN_IN_ERROR_CODES } from "@/lib/core/auth/sign-in-messages";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { env, type Env } from "@/lib/core/config/env";
import { describeError, log } from "@/lib/core/log";
import { authSecret, SESSION_MAX_AGE_SECONDS, sessionCookie } from "./auth-cookies";

export const OIDC_PROVIDER_ID = "oidc";
/** The second step of a sign-in and every step-up: `signIn("mfa", …)` with one proof. */
export const FACTOR_PROVIDER_ID = "mfa";

let cached: NextAuthOptions | undefined;

/** Built on first use, not at import: `next build` must not need production secrets. */
export function authOptions(): NextAuthOptions {
  cached ??= buildAuthOptions();
  return cached;
}

export function oidcEnabled(): { name: string } | null {
  const config = env();
  return config.OIDC_ISSUER && config.OIDC_CLIENT_ID && config.OIDC_CLIENT_SECRET ? { name: config.OIDC_NAME } : null;
}

function buildAuthOptions(): NextAuthOptions {
  const config = env();
  const providers: NextAuthOptions["providers"] = [passwordProvider(config), factorProvider(config)];
  if (oidcEnabled()) providers.push(oidcProvider(config));
  const cookie = sessionCookie();
  return {
    secret: authSecret(),
    providers,
    pages: { signIn: "/signin", error: "/signin" },
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    jwt: { maxAge: SESSION_MAX_AGE_SECONDS },
    useSecureCookies: cookie.options.secure,
    cookies: { sessionToken: cookie },
    logger: {
      // `npm run dev` answers wherever it is opened (localhost, 127.0.0.1, a LAN address), so the
      // origin comes from each request on purpose; next-auth would say so on every request.
      // Anywhere else a missing NEXTAUTH_URL is worth the line.
      warn(code) {
        if (code === "NEXTAUTH_URL" && config.NODE_ENV === "development") return;
        log.warn("next-auth warning", { code, see: `https://next-auth.js.org/warnings#${code.toLowerCase()}` });
      },
    },
    callbacks: {
      signIn: (params) => admitSignIn(config, params),
      jwt: (params) => issueToken(config, params),
      session: ({ session, token }) => sessionOf(session, token),
    },
    events: { signOut: ({ token }) => endSessionsOnSignOut(token) },
  };
}

/** Email and password: scrypt, throttled and audited (verify-credentials.ts). */
function passwordProvider(config: Env) {
  return CredentialsProvider({
    name: "Email and password",
    credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
    async authorize(credentials, req) {
      const email = typeof credentials?.email === "string" ? credentials.email : "";
      const password = typeof credentials?.password === "string" ? credentials.password : "";
      const address = clientAddress(req?.headers?.["x-forwarded-for"] as string | undefined, config.TRUSTED_PROXY_HOPS);
      return sessionUser("sign-in failed", () => verifyCredentials({ email, password, address }), {
        factorProven: false,
      });
    },
  });
}

/** The second step of a sign-in and every step-up: one proof for the user the session names. */
function factorProvider(config: Env) {
  return CredentialsProvider({
    id: FACTOR_PROVIDER_ID,
    name: "Second factor",
    credentials: {
      totp: { type: "text" },
      recovery: { type: "text" },
      passkey: { type: "text" },
      enrolTotp: { type: "text" },
      enrolPasskey: { type: "text" },
      label: { type: "text" },
    },
    // Proves a factor for the user the current session cookie names, and issues the session
    // again with the time of that proof (the cookie is read here: the form sends only the proof).
    async authorize(credentials, req) {
      const headers = (req?.headers ?? {}) as Record<string, string | undefined>;
      const cookie = sessionCookie();
      const token = await getToken({
        req: { headers, cookies: parseCookies(headers.cookie) } as never,
        secret: authSecret(),
        cookieName: cookie.name,
      });
      const proof = proofOf(credentials as Record<string, unknown> | undefined);
      if (!token?.sub || !proof) throw new Error(SIGN_IN_ERROR_CODES.factor);
      const userId = token.sub;
      return sessionUser(
        "second factor failed",
        () =>
          proveFactor({
            userId,
            sessionVersion: typeof token.sv === "number" ? token.sv : null,
            sessionFactorAt: typeof token.fa === "number" ? new Date(token.fa) : null,
            proof,
            address: clientAddress(headers["x-forwarded-for"], config.TRUSTED_PROXY_HOPS),
          }),
        { factorProven: true, sso: token.sso === true },
      );
    },
  });
}

/**
 * A credentials step's verdict as next-auth's user. A refusal is thrown as its code from
 * sign-in-messages.ts (the form shows it as `error`, the same for every refusal, so it never says
 * whether the email exists); a database outage goes to the log and reaches the form as a code too.
 */
async function sessionUser(
  failure: string,
  check: () => Promise<{ ok: true; actor: Actor; sessionVersion: number } | { ok: false; code: string }>,
  session: { factorProven: boolean; sso?: boolean },
) {
  let result;
  try {
    result = await check();
  } catch (error) {
    log.error(failure, { error: describeError(error) });
    throw new Error(SIGN_IN_ERROR_CODES.unavailable);
  }
  if (!result.ok) throw new Error(result.code);
  return {
    id: result.actor.id,
    email: result.actor.email,
    name: result.actor.name,
    sessionVersion: result.sessionVersion,
    factorAt: session.factorProven ? Date.now() : null,
    sso: session.sso === true,
  };
}

/** The one OIDC provider, when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set. */
function oidcProvider(config: Env): NextAuthOptions["providers"][number] {
  return {
    id: OIDC_PROVIDER_ID,
    name: config.OIDC_NAME,
    type: "oauth",
    wellKnown: `${config.OIDC_ISSUER!.replace(/\/+$/, "")}/.well-known/openid-configuration`,
    clientId: config.OIDC_CLIENT_ID!,
    clientSecret: config.OIDC_CLIENT_SECRET!,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    // Async: the email may have to come from userinfo (resolve-oidc-profile.ts). `emailTrusted`
    // carries the verdict to the signIn callback, which refuses without it.
    async profile(claims: OidcClaims & { sub: string }, tokens) {
      const identity = await resolveOidcProfile({
        claims,
        accessToken: tokens.access_token,
        userinfoEndpoint: await userinfoEndpointOf(config.OIDC_ISSUER!),
        trustIssuerEmails: config.OIDC_TRUST_ISSUER_EMAILS === "1",
      });
      return {
        id: claims.sub,
        email: identity.email,
        name: identity.ok ? identity.name : null,
        emailTrusted: identity.ok,
        refusal: identity.ok ? null : identity.reason,
      };
    },
  };
}

type Callbacks = NonNullable<NextAuthOptions["callbacks"]>;

/** Password and factor sign-ins pass (their providers decided); SSO only for an account here. */
async function admitSignIn(
  config: Env,
  { user, account, profile }: Parameters<NonNullable<Callbacks["signIn"]>>[0],
): Promise<string | boolean> {
  if (account?.provider !== OIDC_PROVIDER_ID) return true;
  // Single sign-on only for people who already have an account here, by verified email.
  const resolved = user as { emailTrusted?: unknown; refusal?: string | null };
  const verified = resolved.emailTrusted === true;
  const found = verified && user.email ? await findActorByEmail(user.email) : null;
  // Without the identity provider's MFA, an account that must have a factor is either asked
  // for Keyhook's own (the session waits for it) or refused here (OIDC_WITHOUT_MFA).
  const mfaMissing =
    found !== null &&
    config.OIDC_WITHOUT_MFA === "refuse" &&
    !ssoDidMfa(profile ?? {}, config.OIDC_MFA_ACR_VALUES) &&
    (factorRequired(found.role, config.MFA_REQUIRED_ROLES) || (await holdsFactor(found.id)));
  const actor = mfaMissing ? null : found;
  await recordAudit({
    actor: actor ? { id: actor.id, label: actorLabel(actor) } : { id: null, label: user.email ?? "(no email)" },
    action: "sign-in",
    tenantId: actor?.tenantId ?? null,
    outcome: actor ? "ok" : "denied",
    details: {
      method: "oidc",
      ...(actor
        ? { identityProviderMfa: ssoDidMfa(profile ?? {}, config.OIDC_MFA_ACR_VALUES) }
        : {
            reason: mfaMissing
              ? "no MFA at the identity provider"
              : verified
                ? "no such user or disabled"
                : (resolved.refusal ?? "email not verified"),
          }),
    },
  });
  if (mfaMissing) return `/signin?error=${SIGN_IN_ERROR_CODES.ssoMfa}`;
  return actor ? true : "/signin?error=AccessDenied";
}

// The session names the user, the version it was issued under, when it last proved a second
// factor (`fa`, ms; the identity provider's MFA counts) and whether it came by SSO.
async function issueToken(
  config: Env,
  { token, user, account, profile }: Parameters<NonNullable<Callbacks["jwt"]>>[0],
): Promise<JWT> {
  if (user && account?.provider === OIDC_PROVIDER_ID) {
    const actor = user.email ? await findActorByEmail(user.email) : null;
    token.sub = actor?.id;
    token.sv = actor ? await currentSessionVersion(actor.id) : null;
    token.fa = ssoDidMfa(profile ?? {}, config.OIDC_MFA_ACR_VALUES) ? Date.now() : null;
    token.sso = true;
  } else if (user) {
    const signedIn = user as { sessionVersion?: number; factorAt?: number | null; sso?: boolean };
    token.sub = user.id;
    token.sv = signedIn.sessionVersion ?? null;
    token.fa = signedIn.factorAt ?? null;
    token.sso = signedIn.sso === true;
  }
  return token;
}

function sessionOf(session: Session, token: JWT): Session {
  const sessionVersion = typeof token.sv === "number" ? token.sv : null;
  const factorAt = typeof token.fa === "number" ? token.fa : null;
  return {
    ...session,
    user: {
      id: token.sub ?? null,
      email: session.user?.email ?? null,
      sessionVersion,
      factorAt,
      sso: token.sso === true,
    },
  } as Session;
}

/** Every session of this user ends, not only this cookie (a copied cookie is dead too). */
async function endSessionsOnSignOut(token: JWT | undefined): Promise<void> {
  const actor = await loadActor(token?.sub, undefined, {
    sessionVersion: typeof token?.sv === "number" ? token.sv : null,
  });
  if (!actor) return; // an already-ended session: nothing more to end
  await endAllSessions(actor.id);
  await recordAudit({
    actor: { id: actor.id, label: actorLabel(actor) },
    action: "sign-out",
    tenantId: actor.tenantId,
    outcome: "ok",
  });
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0) cookies[part.slice(0, index).trim()] = decodeURIComponent(part.slice(index + 1).trim());
  }
  return cookies;
}

/** The one proof a factor form sends; anything else is no proof. */
function proofOf(credentials: Record<string, unknown> | undefined): FactorProof | null {
  const field = (name: string) => {
    const value = credentials?.[name];
    return typeof value === "string" && value ? value.slice(0, 20_000) : null;
  };
  const json = (value: string): unknown => {
    try {
      return JSON.parse(value);
    } catch {
      return null;
    }
  };
  const enrolTotp = field("enrolTotp");
  const totp = field("totp");
  if (enrolTotp && totp) return { kind: "enrol-totp", factorId: enrolTotp, code: totp };
  if (totp) return { kind: "totp", code: totp };
  const recovery = field("recovery");
  if (recovery) return { kind: "recovery", code: recovery };
  const passkey = field("passkey");
  if (passkey) return { kind: "passkey", response: json(passkey) };
  const enrolPasskey = field("enrolPasskey");
  if (enrolPasskey) return { kind: "enrol-passkey", response: json(enrolPasskey), label: field("label") ?? "Passkey" };
  return null;
}
