// What live updates cost: 50 open dashboard pages polling GET /live (the change token) against
// the production build, measured as app CPU (every process of the app) and database
// transactions per second (pg_stat_database: each poll's statements run outside a transaction,
// so this is the query rate), next to an idle baseline and to the naive alternative (every page
// re-rendering on a timer) measured in the same run.
//
//   npm run bench:live            (LIVE_BENCH_PAGES, LIVE_BENCH_SECONDS, LIVE_BENCH_PORT, LIVE_BENCH_PG_PORT)
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import { buildKeyEvent, signDelivery } from "../lib/operations/provider/signed-delivery";
import { BENCH_SECRET, startAppUnderTest, type AppUnderTest } from "./support/app-under-test";
import { writeResult } from "./support/results";

const PAGES = Number(process.env.LIVE_BENCH_PAGES ?? 50);
const SECONDS = Number(process.env.LIVE_BENCH_SECONDS ?? 30);
const POLL_MS = 2_500; // components/live-refresh.tsx LIVE_POLL_MS
const PAGE_PATH = "/districts/district-4417";

async function signIn(baseUrl: string, email: string): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const jar = (csrf.headers.getSetCookie() ?? []).map((c) => c.split(";")[0] ?? "").join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: jar, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, password: DEMO_PASSWORD, json: "true" }),
  });
  const session = (response.headers.getSetCookie() ?? [])
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c?.includes("keyhook.session"));
  if (!session) throw new Error(`sign-in of ${email} failed (${response.status})`);
  return `${jar}; ${session}`;
}

type Phase = {
  name: string;
  seconds: number;
  requests: number;
  refreshes: number;
  appCpuPercent: number;
  dbXactPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
};

async function xacts(app: AppUnderTest): Promise<number> {
  const [row] = await app.query<{ n: string }>(
    "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()",
  );
  return Number(row!.n);
}

async function measure(
  app: AppUnderTest,
  name: string,
  run: (until: number, record: (ms: number) => void, refreshed: () => void) => Promise<void>,
): Promise<Phase> {
  const latencies: number[] = [];
  let refreshes = 0;
  const cpu0 = app.cpuSeconds();
  const x0 = await xacts(app);
  const t0 = performance.now();
  await run(
    Date.now() + SECONDS * 1000,
    (ms) => latencies.push(ms),
    () => refreshes++,
  );
  const seconds = (performance.now() - t0) / 1000;
  // Our own two statistics queries are subtracted.
  const dbXact = (await xacts(app)) - x0 - 2;
  const cpu = app.cpuSeconds() - cpu0;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length
      ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10
      : null;
  return {
    name,
    seconds: Math.round(seconds * 10) / 10,
    requests: latencies.length,
    refreshes,
    appCpuPercent: Math.round((cpu / seconds) * 1000) / 10,
    dbXactPerSecond: Math.round((dbXact / seconds) * 10) / 10,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

/** One simulated open page: polls the token and, when it moved, fetches the page as router.refresh() does (RSC payload). */
async function livePage(
  baseUrl: string,
  cookie: string,
  until: number,
  offsetMs: number,
  record: (ms: number) => void,
  refreshed: () => void,
  mode: "token" | "timer",
) {
  await new Promise((resolve) => setTimeout(resolve, offsetMs));
  let last: string | null = null;
  while (Date.now() < until) {
    const started = performance.now();
    if (mode === "token") {
      const response = await fetch(`${baseUrl}/live`, { headers: { cookie, accept: "application/json" } });
      const { token } = (await response.json()) as { token: string };
      record(performance.now() - started);
      if (last !== null && token !== last) {
        await (await fetch(`${baseUrl}${PAGE_PATH}`, { headers: { cookie, rsc: "1" } })).arrayBuffer();
        refreshed();
      }
      last = token;
    } else {
      await (await fetch(`${baseUrl}${PAGE_PATH}`, { headers: { cookie, rsc: "1" } })).arrayBuffer();
      record(performance.now() - started);
      refreshed();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function main() {
  const port = Number(process.env.LIVE_BENCH_PORT ?? 4810);
  const pgPort = Number(process.env.LIVE_BENCH_PG_PORT ?? 55810);
  const app = await startAppUnderTest({ port, pgPort, env: { KEYHOOK_SEED_DEMO: "1", LOG_LEVEL: "warn" } });
  try {
    // Two kinds of viewer: staff (the global token) and a district admin (the district's token).
    const cookies = [
      await signIn(app.baseUrl, "support@keyhook.test"),
      await signIn(app.baseUrl, "admin@district-4417.test"),
    ];
    const pages =
      (mode: "token" | "timer") => async (until: number, record: (ms: number) => void, refreshed: () => void) => {
        await Promise.all(
          Array.from({ length: PAGES }, (_, i) =>
            livePage(app.baseUrl, cookies[i % 2]!, until, (i * POLL_MS) / PAGES, record, refreshed, mode),
          ),
        );
      };
    let sequence = 10_000;
    const events = (everyMs: number) => async (until: number) => {
      while (Date.now() < until) {
        const event = buildKeyEvent({
          type: "key.created",
          tenantId: "district-4417",
          keyId: `key_bench_live_${sequence}`,
          sequence: sequence++,
        });
        const signed = signDelivery({
          body: JSON.stringify(event),
          webhookId: String(event.id),
          secrets: [BENCH_SECRET],
        });
        await fetch(`${app.baseUrl}/api/webhooks/keys`, { method: "POST", headers: signed.headers, body: signed.body });
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    };

    console.log(`live updates: ${PAGES} open pages, polling every ${POLL_MS} ms, ${SECONDS} s per phase`);
    const phases: Phase[] = [];
    phases.push(
      await measure(
        app,
        "idle (no page open)",
        (until) => new Promise((resolve) => setTimeout(resolve, until - Date.now())),
      ),
    );
    phases.push(await measure(app, `${PAGES} pages, token polling, nothing changes`, pages("token")));
    phases.push(
      await measure(app, `${PAGES} pages, token polling, 1 event / 5 s`, async (until, record, refreshed) => {
        await Promise.all([pages("token")(until, record, refreshed), events(5_000)(until)]);
      }),
    );
    phases.push(await measure(app, `${PAGES} pages, naive: re-render every ${POLL_MS} ms`, pages("timer")));

    console.table(phases);
    const [idle, quiet, busy, naive] = phases;
    console.log(
      `token polling costs ${(quiet!.appCpuPercent - idle!.appCpuPercent).toFixed(1)} % of a core over idle when nothing changes ` +
        `(${(naive!.appCpuPercent / Math.max(0.1, quiet!.appCpuPercent)).toFixed(1)}× less than re-rendering on a timer); ` +
        `with an event every 5 s: ${busy!.appCpuPercent} % and ${busy!.refreshes} page refreshes`,
    );
    writeResult("live-updates", { pages: PAGES, pollMs: POLL_MS, secondsPerPhase: SECONDS, phases });
  } finally {
    await app.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
