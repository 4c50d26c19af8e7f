// Session cookie settings shared by the next-auth handler (auth.ts) and the proxy (proxy.ts),
// which must agree on the cookie's name and the secret that seals it.
import { DEV_AUTH_SECRET, env } from "./lib/core/config/env";
import { isHttpsDeployment } from "./http/security-headers";

export function authSecret(): string {
  return env().NEXTAUTH_SECRET ?? DEV_AUTH_SECRET;
}

/** Over https the cookie is Secure with the __Host- prefix (no Domain, path /): it cannot be set by a sibling subdomain. */
export function sessionCookie() {
  const secure = isHttpsDeployment(env().NEXTAUTH_URL);
  return {
    name: `${secure ? "__Host-" : ""}keyhook.session`,
    // HttpOnly: scripts never read it. SameSite=Lax: not sent on cross-site POSTs (CSRF).
    options: { httpOnly: true, sameSite: "lax" as const, path: "/", secure },
  };
}

export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;
