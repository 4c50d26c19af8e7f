// next dev compiles a route on its first request: seconds each on a small machine, which a
// newcomer would wait through on every first click. `npm run dev` (scripts/boot.ts) asks for the
// routes a newcomer opens first as soon as next dev listens, while PostgreSQL, the migrations and
// the seed are still going, so that they are compiled before anyone asks.
//
// The dashboard's proxy sends a request without a session to sign-in before the page is compiled,
// so the dashboard pages are asked for with a session cookie that passes the proxy but names no
// account (signed with the app's own secret, the dev default): the page compiles, then refuses it
// like any unknown session. Nothing is signed in, nothing is written, nothing is audited.
import { connect } from "node:net";
import { encode } from "next-auth/jwt";
import { authSecret, sessionCookie } from "../../auth-cookies";

type Route = { path: string; session?: boolean };

/**
 * What a newcomer opens first, in rounds: sign-in, its own steps, where it leads, then the main
 * tabs. A round is asked for together (Turbopack compiles on its own threads, and pages share
 * most of their modules); the next round waits, so a busy machine serves the newcomer's path first.
 */
export const FIRST_ROUTES: Route[][] = [
  [{ path: "/signin" }],
  [{ path: "/api/auth/csrf" }, { path: "/signin/factor", session: true }],
  [
    { path: "/overview", session: true },
    { path: "/live", session: true },
  ],
  [
    { path: "/districts", session: true },
    { path: "/districts/district-4417", session: true },
    { path: "/ledger", session: true },
    { path: "/deliveries", session: true },
  ],
];

export type WarmUp = {
  /** Resolves once every route answered (or failed: a broken page is for the developer to see). */
  done: Promise<void>;
  /** The routes still compiling, for a line on a slow start. */
  pending(): string[];
};

export function warmUp(options: { baseUrl: string; signal?: AbortSignal }): WarmUp {
  const pending = new Set(FIRST_ROUTES.flat().map((route) => route.path));
  const done = (async () => {
    await waitForListening(options.baseUrl, options.signal);
    const cookie = `${sessionCookie().name}=${await encode({ token: { sub: "warm-up" }, secret: authSecret() })}`;
    const ask = async (route: Route) => {
      await fetch(options.baseUrl + route.path, {
        redirect: "manual",
        headers: route.session ? { cookie } : {},
        signal: options.signal,
      })
        .then((response) => response.arrayBuffer())
        .catch(() => {});
      pending.delete(route.path);
    };
    for (const round of FIRST_ROUTES) await Promise.all(round.map(ask));
  })();
  return { done, pending: () => [...pending] };
}

/** Until next dev accepts connections (a request for a route would compile one). */
async function waitForListening(baseUrl: string, signal?: AbortSignal): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  while (!signal?.aborted) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (listening) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
