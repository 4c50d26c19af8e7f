// What the sign-in form may say. next-auth hands the form an error *code* (our Credentials codes,
// or its own OAuth ones) and the same code arrives in /signin?error=…; only codes listed here
// are shown, each as our sentence, and anything else (a forged query, an internal message) as
// one generic sentence. So no text from a URL or an exception ever reaches the page.
export const SIGN_IN_ERROR_CODES = {
  invalid: "InvalidCredentials",
  busy: "SignInBusy",
  unavailable: "SignInUnavailable",
} as const;

export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[keyof typeof SIGN_IN_ERROR_CODES];

const INVALID = "Invalid email or password.";

const messages: Record<string, string> = {
  [SIGN_IN_ERROR_CODES.invalid]: INVALID,
  [SIGN_IN_ERROR_CODES.busy]: "Sign-in is busy right now. Try again in a moment.",
  [SIGN_IN_ERROR_CODES.unavailable]: "Sign-in is unavailable right now. Try again in a moment.",
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
