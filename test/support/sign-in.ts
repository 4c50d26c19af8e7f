// Signs in through next-auth's own credentials flow (csrf token, then the callback) and returns
// the Cookie header of the session: for benchmarks and tests that GET dashboard pages over HTTP.
import { DEMO_PASSWORD } from "../../lib/operations/demo/demo-data";
import { nextDemoCode } from "./demo-totp";

/** The Cookie header of a signed-in session of `email` (a demo user unless `password` is given). */
export async function signInCookie(baseUrl: string, email: string, password = DEMO_PASSWORD): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const index = pair!.indexOf("=");
      jar.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
  };
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrfResponse = await fetch(`${baseUrl}/api/auth/csrf`);
  keep(csrfResponse);
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const signIn = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  keep(signIn);
  if (![...jar.keys()].some((name) => name.endsWith("keyhook.session")))
    throw new Error(`sign-in of ${email} failed (${signIn.status})`);
  // The second step: a demo staff account answers with a code of the demo authenticator key.
  const step = await fetch(`${baseUrl}/signin/factor`, { redirect: "manual", headers: { cookie: header() } });
  if (step.status === 200) {
    const factor = await fetch(`${baseUrl}/api/auth/callback/mfa`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
      body: new URLSearchParams({ csrfToken, totp: await nextDemoCode(email), json: "true" }),
    });
    keep(factor);
    if (factor.status >= 400 || (factor.headers.get("location") ?? "").includes("error="))
      throw new Error(`second factor of ${email} refused (${factor.status} ${factor.headers.get("location")})`);
  }
  return header();
}
