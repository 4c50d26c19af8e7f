// A real OpenID Provider (node-oidc-provider, its dev login/consent screens) for the SSO tests,
// and a headless browser for its authorization-code flow: login as an account id, consent,
// follow the redirects with a cookie jar, and hand back the redirect to our callback.
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

export type TestAccount = {
  email?: string;
  email_verified?: unknown;
  name?: string;
  /** email claims only from userinfo, not in the ID token */ userinfoOnly?: boolean;
};

export async function startOidcProvider(options: {
  port: number;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: Record<string, TestAccount>;
}) {
  const issuer = `http://127.0.0.1:${options.port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // Scope claims go into the ID token too (as many providers do), except for userinfoOnly accounts.
    conformIdTokenClaims: false,
    cookies: { keys: ["keyhook-test-oidc-cookie-key"] },
    async findAccount(_ctx, id) {
      const account = options.accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        async claims(use: string) {
          const { userinfoOnly, ...claims } = account;
          return use === "id_token" && userinfoOnly ? { sub: id } : { sub: id, ...claims };
        },
      };
    },
  });
  provider.proxy = false;
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  return { issuer, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs the browser's part of the code flow; returns the URL the provider redirects to (our callback). */
export async function authorizeAs(authorizationUrl: string, accountId: string, redirectUri: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body,
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const index = pair!.indexOf("=");
      jar.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
    body = undefined;
    const location = response.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next;
      continue;
    }
    const html = await response.text();
    const action = /action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (!action || !prompt)
      throw new Error(`unexpected page from the provider (${response.status}): ${html.slice(0, 300)}`);
    url = new URL(action, url);
    body = new URLSearchParams(prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt });
  }
  throw new Error("too many redirects");
}
