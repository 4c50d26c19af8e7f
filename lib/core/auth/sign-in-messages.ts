// What the sign-in form may say. next-auth hands the form an error *code* (our Credentials codes,
// or its own OAuth ones) and the same code arrives in /signin?error=…; only codes listed here
// are shown, each as our sentence, and anything else (a forged query, an internal message) as
// one generic sentence. So no text from a URL or an exception ever reaches the page.
export const SIGN_IN_ERROR_CODES = {
  invalid: "InvalidCredentials",
  busy: "SignInBusy",
  unavailable: "SignInUnavailable",
  /** A second factor was refused (wrong, used before, throttled or expired: never which). */
  factor: "FactorRefused",
  /** Single sign-on without the identity provider's MFA, where OIDC_WITHOUT_MFA=refuse. */
  ssoMfa: "SsoMfaRequired",
} as const;

export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[keyof typeof SIGN_IN_ERROR_CODES];

const INVALID = "Invalid email or password.";

const messages: Record<string, string> = {
  [SIGN_IN_ERROR_CODES.invalid]: INVALID,
  [SIGN_IN_ERROR_CODES.busy]: "Sign-in is busy right now. Try again in a moment.",
  [SIGN_IN_ERROR_CODES.unavailable]: "Sign-in is unavailable right now. Try again in a moment.",
  [SIGN_IN_ERROR_CODES.factor]: "That did not work. Check the code (or use another way) and try again.",
  [SIGN_IN_ERROR_CODES.ssoMfa]:
    "Your identity provider did not confirm a second factor for this sign-in. Sign in there with MFA and try again.",
  // next-auth's own codes.
  CredentialsSignin: INVALID,
  AccessDenied: "This account may not sign in here. Ask a platform admin to add you.",
  OAuthSignin: "Single sign-on could not start. Try again.",
  OAuthCallback: "Single sign-on did not complete. Try again.",
  OAuthAccountNotLinked: "This account may not sign in here. Ask a platform admin to add you.",
  Callback: "Single sign-on did not complete. Try again.",
  SessionRequired: "Sign in to continue.",
};

export const GENERIC_SIGN_IN_ERROR = "Sign-in failed. Try again.";

export function signInErrorMessage(code: string | null | undefined): string | undefined {
  if (!code) return undefined;
  return Object.hasOwn(messages, code) ? messages[code] : GENERIC_SIGN_IN_ERROR;
}

/**
 * Said on the sign-in page to the browser whose session just ended (load-actor.ts,
 * endedSessionReason), never in answer to a sign-in attempt.
 */
export const ENDED_SESSION_MESSAGES = {
  disabled:
    "A platform admin disabled your account, so your session ended. Ask a platform admin to enable it again; until then, signing in is refused.",
  changed:
    "Your session ended: your account changed (its role, district or password) or you signed out on another device. Sign in again.",
} as const;
