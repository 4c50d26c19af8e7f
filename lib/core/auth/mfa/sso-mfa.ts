// Whether an identity provider says its sign-in used more than a password: the ID token's `amr`
// (RFC 8176 authentication method references) holds one of the methods below, or its `acr` is
// one the deployment lists in OIDC_MFA_ACR_VALUES (docs/security.md, "Single sign-on").
const MFA_AMR_VALUES = ["mfa", "mca", "otp", "hwk", "swk", "sc"] as const;

export function ssoDidMfa(claims: object, acrValues: readonly string[]): boolean {
  const { amr: rawAmr, acr } = claims as { amr?: unknown; acr?: unknown };
  const amr = Array.isArray(rawAmr) ? rawAmr.filter((v): v is string => typeof v === "string") : [];
  if (amr.some((method) => (MFA_AMR_VALUES as readonly string[]).includes(method.toLowerCase()))) return true;
  return typeof acr === "string" && acrValues.includes(acr);
}
