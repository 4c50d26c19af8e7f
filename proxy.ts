// First line of defence only: an anonymous request for a dashboard page is sent to sign-in.
// Authorization itself happens again in every page, action and route (app/_lib/session.ts).
import type { NextFetchEvent, NextRequest } from "next/server";
import { withAuth, type NextRequestWithAuth } from "next-auth/middleware";
import { authSecret, sessionCookie } from "./auth-cookies";

export default function proxy(request: NextRequest, event: NextFetchEvent) {
  const guard = withAuth({
    secret: authSecret(),
    cookies: { sessionToken: sessionCookie() },
    pages: { signIn: "/signin" },
  });
  return guard(request as NextRequestWithAuth, event);
}

export const config = {
  // Machines and the sign-in flow stay outside: every /api route (webhook, health, metrics, cron,
  // next-auth) authenticates its caller itself; the dashboard has no /api routes.
  matcher: ["/((?!api/|signin|_next/|favicon\\.ico).*)"],
};
