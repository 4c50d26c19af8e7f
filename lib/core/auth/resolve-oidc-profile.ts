import "server-only";
// Who an OpenID Provider says signed in, and whether we may believe the email. An email counts
// only when the provider says it verified it (`email_verified: true`, not merely "not false":
// some providers never send the claim, and then anyone who can type an address there would
// become the existing user here), unless the deployment explicitly trusts the issuer's emails
// (OIDC_TRUST_ISSUER_EMAILS=1, off by default). When the ID token lacks the email or its
// verification (providers that put profile claims only in userinfo, as OpenID Connect allows),
// the userinfo endpoint is asked with the access token, and its answer counts only for the same `sub`.
import { log } from "../log";

export type OidcClaims = { sub?: unknown; email?: unknown; email_verified?: unknown; name?: unknown };

type OidcIdentity =
  | { ok: true; sub: string; email: string; name: string | null; source: "id_token" | "userinfo" }
  | {
      ok: false;
      sub: string | null;
      email: string | null;
      reason: "no email" | "email not verified" | "userinfo failed";
    };

export async function resolveOidcProfile(options: {
  claims: OidcClaims;
  accessToken?: string | null;
  userinfoEndpoint?: string | null;
  trustIssuerEmails: boolean;
  fetch?: typeof fetch;
}): Promise<OidcIdentity> {
  const { claims, trustIssuerEmails } = options;
  const sub = typeof claims.sub === "string" && claims.sub ? claims.sub : null;
  if (!sub) return { ok: false, sub: null, email: null, reason: "no email" };
  const fromToken = judge(claims, trustIssuerEmails);
  if (fromToken.verified) return { ok: true, sub, email: fromToken.email!, name: nameOf(claims), source: "id_token" };

  let info: OidcClaims | null = null;
  if (options.accessToken && options.userinfoEndpoint) {
    try {
      const response = await (options.fetch ?? fetch)(options.userinfoEndpoint, {
        headers: { authorization: `Bearer ${options.accessToken}`, accept: "application/json" },
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) throw new Error(`userinfo answered ${response.status}`);
      info = (await response.json()) as OidcClaims;
    } catch (error) {
      log.warn("oidc userinfo failed", { error: String(error) });
      return { ok: false, sub, email: fromToken.email, reason: "userinfo failed" };
    }
  }
  // Userinfo about somebody else (OpenID Connect Core 5.3.2) is ignored.
  if (info && info.sub === sub) {
    const fromUserinfo = judge({ ...info, email: info.email ?? fromToken.email ?? undefined }, trustIssuerEmails);
    if (fromUserinfo.verified)
      return { ok: true, sub, email: fromUserinfo.email!, name: nameOf(info) ?? nameOf(claims), source: "userinfo" };
    if (fromUserinfo.email) return { ok: false, sub, email: fromUserinfo.email, reason: "email not verified" };
  }
  return fromToken.email
    ? { ok: false, sub, email: fromToken.email, reason: "email not verified" }
    : { ok: false, sub, email: null, reason: "no email" };
}

function judge(claims: OidcClaims, trustIssuerEmails: boolean): { email: string | null; verified: boolean } {
  const email =
    typeof claims.email === "string" && claims.email.includes("@") ? claims.email.trim().toLowerCase() : null;
  return { email, verified: email !== null && (claims.email_verified === true || trustIssuerEmails) };
}

function nameOf(claims: OidcClaims): string | null {
  return typeof claims.name === "string" ? claims.name : null;
}

let discovered: { issuer: string; endpoint: Promise<string | null> } | undefined;

/** The provider's userinfo endpoint from its discovery document (fetched once per process). */
export function userinfoEndpointOf(issuer: string): Promise<string | null> {
  if (discovered?.issuer !== issuer) {
    const endpoint = fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(5_000),
    })
      .then(async (r) => ((await r.json()) as { userinfo_endpoint?: string }).userinfo_endpoint ?? null)
      .catch(() => {
        discovered = undefined; // try again next time
        return null;
      });
    discovered = { issuer, endpoint };
  }
  return discovered.endpoint;
}
