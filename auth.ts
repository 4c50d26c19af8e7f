import "server-only";
// next-auth 4 configuration: Credentials (bcrypt, throttled, audited) and, when configured, one
// OIDC provider. Sessions are JWTs in an HttpOnly cookie, but the JWT only names the user: every
// page, action and route re-reads the user (app/_lib/session.ts), so disabling an account or
// changing a role takes effect on the next request.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/record-audit";
import { actorLabel } from "@/lib/auth/actor";
import { findActorByEmail, loadActor } from "@/lib/auth/load-actor";
import { verifyCredentials } from "@/lib/auth/verify-credentials";
import { env } from "@/lib/env";
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
      async authorize(credentials) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password.slice(0, 200) : "";
        const result = await verifyCredentials({ email, password });
        // The message reaches the sign-in form as `error`; it never says whether the email exists.
        if (!result.ok) throw new Error(result.message);
        return { id: result.actor.id, email: result.actor.email, name: result.actor.name };
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
      profile(profile: { sub: string; email?: string; name?: string; email_verified?: boolean }) {
        return { id: profile.sub, email: profile.email ?? null, name: profile.name ?? null, emailVerified: profile.email_verified };
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
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        // Single sign-on only for people who already have an account here, by verified email.
        const verified = (profile as { email_verified?: boolean } | undefined)?.email_verified !== false;
        const actor = verified && user.email ? await findActorByEmail(user.email) : null;
        await recordAudit({
          actor: actor ? { id: actor.id, label: actorLabel(actor) } : { id: null, label: user.email ?? "(no email)" },
          action: "sign-in",
          tenantId: actor?.tenantId ?? null,
          outcome: actor ? "ok" : "denied",
          details: { method: "oidc", ...(actor ? {} : { reason: verified ? "no such user or disabled" : "email not verified" }) },
        });
        return actor ? true : "/signin?error=AccessDenied";
      },
      async jwt({ token, user, account }) {
        if (user && account?.provider === OIDC_PROVIDER_ID) {
          const actor = user.email ? await findActorByEmail(user.email) : null;
          token.sub = actor?.id;
        } else if (user) {
          token.sub = user.id;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { id: token.sub ?? null, email: session.user?.email ?? null } } as typeof session;
      },
    },
    events: {
      async signOut({ token }) {
        const actor = await loadActor(token?.sub);
        if (actor) await recordAudit({ actor: { id: actor.id, label: actorLabel(actor) }, action: "sign-out", tenantId: actor.tenantId, outcome: "ok" });
      },
    },
  };
}
