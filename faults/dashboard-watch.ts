// A signed-in platform admin keeps reloading a dashboard page through the run: during an outage
// the page must be the dashboard's error page (never a stack trace or internal text), and it
// must come back by itself.
import { signInCookie } from "../test/support/sign-in";

export type DashboardWatch = {
  stop(): Promise<DashboardFigures>;
};

export type DashboardFigures = {
  loads: number;
  ok: number;
  errorPages: number;
  /** Answers that were neither the page nor the dashboard's error page, or showed internals. */
  leaks: { status: number; excerpt: string }[];
  /** The last load after the run answered 200. */
  recovered: boolean;
};

// The dashboard's error page (components/page-error.tsx), in the HTML when a page fails; when
// the layout fails (it loads the signed-in user), Next answers its error shell and the browser
// renders the same page from app/error.tsx. And what must never reach a user.
const ERROR_PAGE = "This page could not be loaded";
const ERROR_SHELL = '<html id="__next_error__"';
const INTERNALS = /\bat [\w.<>]+ \(|node_modules|PrismaClient|DriverAdapterError|ECONNREFUSED|terminating connection/;

export async function watchDashboard(options: {
  baseUrl: string;
  path: string;
  email: string;
  intervalMs: number;
}): Promise<DashboardWatch> {
  const cookie = await signInCookie(options.baseUrl, options.email);
  const figures: DashboardFigures = { loads: 0, ok: 0, errorPages: 0, leaks: [], recovered: false };
  const load = async () => {
    const response = await fetch(`${options.baseUrl}${options.path}`, {
      headers: { cookie },
      redirect: "manual",
      signal: AbortSignal.timeout(20_000),
    }).catch(() => null);
    if (!response) return null;
    const body = await response.text().catch(() => "");
    figures.loads++;
    if (INTERNALS.test(body)) figures.leaks.push({ status: response.status, excerpt: excerpt(body) });
    else if (response.status === 200 && !body.includes(ERROR_PAGE)) figures.ok++;
    else if (body.includes(ERROR_PAGE) || (response.status === 500 && body.includes(ERROR_SHELL))) figures.errorPages++;
    else figures.leaks.push({ status: response.status, excerpt: excerpt(body) });
    return response.status === 200 && !body.includes(ERROR_PAGE);
  };
  let running = true;
  const loop = (async () => {
    while (running) {
      await load();
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      figures.recovered = (await load()) === true;
      return figures;
    },
  };
}

function excerpt(body: string): string {
  const match = INTERNALS.exec(body);
  const at = match ? Math.max(0, match.index - 80) : 0;
  return body.slice(at, at + 240).replace(/\s+/g, " ");
}
