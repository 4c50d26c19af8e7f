// The browser-side policy of every response, in one place (docs/security.md explains each line).
// The production server sets the static headers on every response before Next runs
// (server/request-guard.ts); proxy.ts replaces the fallback policy of every page with one that
// carries a fresh nonce, from which Next marks its own scripts.

/** A deployment is https when its public URL is (NEXTAUTH_URL): Secure cookies, HSTS, upgrades. */
export function isHttpsDeployment(publicUrl: string | undefined): boolean {
  return publicUrl?.startsWith("https://") ?? false;
}

export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/** What a response that is not a page gets (JSON, CSV, a file): nothing may run or load. */
const FALLBACK_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Every response: no MIME sniffing, no referrer leaving the site, never in a frame, HSTS over https. */
export function staticSecurityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    // Not on a page that proxy.ts answers: there it is replaced by the page's own policy.
    "content-security-policy": FALLBACK_POLICY,
    ...(options.https ? { "strict-transport-security": `max-age=${HSTS_MAX_AGE_SECONDS}; includeSubDomains` } : {}),
  };
}

/**
 * A page's policy. Scripts: only those carrying this response's nonce, and what they load
 * ('strict-dynamic': Next's chunks); React needs eval only for its development tooling. Styles:
 * our stylesheet files (and inline ones in development, for the error overlay); of style
 * attributes only React's hidden-segment one.
 */
/**
 * React's streaming renderer hides a segment it sends ahead inside SVG or MathML as
 * `<svg aria-hidden="true" style="display:none">`: that one style attribute (its sha256) is allowed.
 */
export const REACT_HIDDEN_SEGMENT_STYLE_HASH = "'sha256-aqNNdDLnnrDOnTNdkJpYlAxKVJtLt9CtFLklmInuUAE='";

export function contentSecurityPolicy(options: { nonce: string; development: boolean; https: boolean }): string {
  const nonce = `'nonce-${options.nonce}'`;
  return [
    "default-src 'self'",
    `script-src 'self' ${nonce} 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${options.development ? "'unsafe-inline'" : nonce}`,
    ...(options.development ? [] : [`style-src-attr 'unsafe-hashes' ${REACT_HIDDEN_SEGMENT_STYLE_HASH}`]),
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
