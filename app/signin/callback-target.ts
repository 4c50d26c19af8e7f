// Where sign-in returns to: the page that sent the person here (proxy.ts adds ?callbackUrl=),
// but only a path on this site. An absolute or protocol-relative URL ("//evil.example",
// "/\evil.example", "https://…") is ignored, so a crafted link cannot bounce a fresh session
// to another site.
export const DEFAULT_AFTER_SIGN_IN = "/overview";

export function callbackTarget(raw: unknown): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== "string" || value.length > 2000) return DEFAULT_AFTER_SIGN_IN;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || /[\u0000-\u001f\\]/.test(value))
    return DEFAULT_AFTER_SIGN_IN;
  const base = "http://keyhook.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return DEFAULT_AFTER_SIGN_IN;
  }
  if (url.origin !== base) return DEFAULT_AFTER_SIGN_IN;
  // Back to sign-in or into next-auth's own routes would loop or do nothing useful.
  if (url.pathname === "/signin" || url.pathname.startsWith("/api/")) return DEFAULT_AFTER_SIGN_IN;
  return `${url.pathname}${url.search}${url.hash}`;
}
