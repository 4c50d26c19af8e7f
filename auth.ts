import "server-only";
// next-auth 4 configuration: Credentials (scrypt, throttled, audited) and, when configured, one
// OIDC provider. Sessions are JWTs in an HttpOnly cookie naming the user and the session version
// it was issued under: every page, action and route re-reads the user (app/_lib/session.ts) and
// refuses another version, so sign-out, disabling an account or changing a role, district or
// password ends every existing session on its next request.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/record-audit";
import { actorLabel } from "@/lib/auth/actor";
import { clientAddress } from "@/lib/auth/client-address";
import { currentSessionVersion, endAllSessions, findActorByEmail, loadActor } from "@/lib/auth/load-actor";
import { resolveOidcProfile, userinfoEndpointOf, type OidcClaims } from "@/lib/auth/resolve-oidc-profile";
import { SIGN_IN_ERROR_CODES } from "@/lib/auth/sign-in-messages";
import { verifyCredentials } from "@/lib/auth/verify-credentials";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { authSecret, SESSION_MAX_AGE_SECONDS, sessionCookie } from "./auth-cookies";

export const OIDC_PROVIDER_ID = "oidc";

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
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password.slice(0, 200) : "";
        const address = clientAddress(
          req?.headers?.["x-forwarded-for"] as string | undefined,
          config.TRUSTED_PROXY_HOPS,
        );
        let result;
        try {
          result = await verifyCredentials({ email, password, address });
        } catch (error) {
          // A database outage: the details go to the log, the form gets a code (never this text).
          log.error("sign-in failed", { error: describeError(error) });
          throw new Error(SIGN_IN_ERROR_CODES.unavailable);
        }
        // The thrown message reaches the form as `error`: a code from sign-in-messages.ts, the
        // same for every refusal, so it never says whether the email exists.
        if (!result.ok) throw new Error(result.code);
        return {
          id: result.actor.id,
          email: result.actor.email,
          name: result.actor.name,
          sessionVersion: result.sessionVersion,
        };
      },
    }),
  ];
  if (oidcEnabled()) {
    providers.push({
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
    });
  }

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
      async signIn({ user, account }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        // Single sign-on only for people who already have an account here, by verified email.
        const resolved = user as { emailTrusted?: unknown; refusal?: string | null };
        const verified = resolved.emailTrusted === true;
        const actor = verified && user.email ? await findActorByEmail(user.email) : null;
        await recordAudit({
          actor: actor ? { id: actor.id, label: actorLabel(actor) } : { id: null, label: user.email ?? "(no email)" },
          action: "sign-in",
          tenantId: actor?.tenantId ?? null,
          outcome: actor ? "ok" : "denied",
          details: {
            method: "oidc",
            ...(actor
              ? {}
              : { reason: verified ? "no such user or disabled" : (resolved.refusal ?? "email not verified") }),
          },
        });
        return actor ? true : "/signin?error=AccessDenied";
      },
      async jwt({ token, user, account }) {
        if (user && account?.provider === OIDC_PROVIDER_ID) {
          const actor = user.email ? await findActorByEmail(user.email) : null;
          token.sub = actor?.id;
          token.sv = actor ? await currentSessionVersion(actor.id) : null;
        } else if (user) {
          token.sub = user.id;
          token.sv = (user as { sessionVersion?: number }).sessionVersion ?? null;
        }
        return token;
      },
      async session({ session, token }) {
        const sessionVersion = typeof token.sv === "number" ? token.sv : null;
        return {
          ...session,
          user: { id: token.sub ?? null, email: session.user?.email ?? null, sessionVersion },
        } as typeof session;
      },
    },
    events: {
      async signOut({ token }) {
        const actor = await loadActor(token?.sub, undefined, {
          sessionVersion: typeof token?.sv === "number" ? token.sv : null,
        });
        if (!actor) return; // an already-ended session: nothing more to end
        // Every session of this user ends, not only this cookie (a copied cookie is dead too).
        await endAllSessions(actor.id);
        await recordAudit({
          actor: { id: actor.id, label: actorLabel(actor) },
          action: "sign-out",
          tenantId: actor.tenantId,
          outcome: "ok",
        });
      },
    },
  };
}
