// Every page passes here (Next's proxy, before it renders):
//  - a fresh nonce and the page's Content-Security-Policy (http/security-headers.ts), on the
//    response and on the request, where Next reads the nonce to mark its own scripts;
//  - first line of defence only: an anonymous request for a dashboard page is sent to sign-in.
//    Authorization itself happens again in every page, action and route (app/_lib/session.ts).
import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { withAuth, type NextRequestWithAuth } from "next-auth/middleware";
import { env } from "@/lib/core/config/env";
import { contentSecurityPolicy, isHttpsDeployment } from "@/http/security-headers";
import { authSecret, sessionCookie } from "./auth-cookies";

export default async function proxy(request: NextRequest, event: NextFetchEvent) {
  const config = env();
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64");
  const policy = contentSecurityPolicy({
    nonce,
    development: config.NODE_ENV === "development",
    https: isHttpsDeployment(config.NEXTAUTH_URL),
  });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const render = () => NextResponse.next({ request: { headers } });
  const response =
    request.nextUrl.pathname === "/signin"
      ? render()
      : await withAuth(render, {
          secret: authSecret(),
          cookies: { sessionToken: sessionCookie() },
          pages: { signIn: "/signin" },
        })(request as NextRequestWithAuth, event);
  response?.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Machines stay outside: every /api route (webhook, health, metrics, cron, next-auth)
  // authenticates its caller itself and answers no page; static files carry no script.
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico|icon\\.svg).*)"],
};
