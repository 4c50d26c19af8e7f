// No text from a URL or an exception reaches the sign-in form: only known codes have words.
// A database outage during sign-in is answered with a code, its details go to the log.
import { expect, it } from "vitest";
import { GENERIC_SIGN_IN_ERROR, signInErrorMessage } from "@/lib/core/auth/sign-in-messages";
import { resetEnvForTests } from "@/lib/core/config/env";

it("maps known codes to our sentences and anything else to one generic sentence", () => {
  expect(signInErrorMessage("InvalidCredentials")).toBe("Invalid email or password.");
  expect(signInErrorMessage("CredentialsSignin")).toBe("Invalid email or password.");
  expect(signInErrorMessage("AccessDenied")).toMatch(/may not sign in here/);
  expect(signInErrorMessage("SignInUnavailable")).toMatch(/unavailable right now/);
  for (const text of [
    "Your account is suspended, call +1 555 0100",
    "timeout exceeded when trying to connect",
    "toString",
    "__proto__",
    "<b>x</b>",
    "Verification",
  ]) {
    expect(signInErrorMessage(text)).toBe(GENERIC_SIGN_IN_ERROR);
  }
  expect(signInErrorMessage(undefined)).toBeUndefined();
});

it("a database failure during sign-in reaches the form as SignInUnavailable, never as the driver's text", async () => {
  // Nothing listens on port 1: the pool's connect fails the way an outage does.
  process.env.DATABASE_URL = "postgresql://keyhook@127.0.0.1:1/keyhook";
  resetEnvForTests();
  const { authOptions } = await import("@/auth");
  const provider = authOptions().providers[0] as unknown as {
    options: { authorize: (c: Record<string, string>, r: unknown) => Promise<unknown> };
  };
  const failure = await provider.options
    .authorize({ email: "someone@x.test", password: "x" }, { headers: {} })
    .catch((error: Error) => error);
  expect(failure).toBeInstanceOf(Error);
  expect((failure as Error).message).toBe("SignInUnavailable");
  expect(signInErrorMessage((failure as Error).message)).toBe(
    "Sign-in is unavailable right now. Try again in a moment.",
  );
});
