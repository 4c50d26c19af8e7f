// What the journeys share: the `test` every spec imports (it fails a test on any Content-Security-
// Policy violation or console error in any page the test opens), signing in as a demo user,
// playing the provider's part (a signed webhook, exactly as the provider would send it), running
// a background job the worker would run, and saving screenshots as artifacts (at both widths).
import { execFileSync } from "node:child_process";
import {
  test as base,
  expect,
  request as playwrightRequest,
  type APIRequestContext,
  type BrowserContext,
  type Cookie,
  type Page,
} from "@playwright/test";
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import { DEV_WEBHOOK_SECRET } from "../lib/core/config/env";
import { buildKeyEvent, signDelivery, type KeyEventInput } from "../lib/operations/provider/signed-delivery";
import { nextDemoCode } from "../test/support/demo-totp";

export { expect };

type BrowserGuard = { browserProblems: void };

/**
 * Every spec's `test`. Each browser context the test opens (its `page`, and any made with
 * `browser.newContext()` / `browser.newPage()`) reports Content-Security-Policy violations and
 * console errors; the test fails on any it did not declare with `expectConsoleError()` (a request
 * refused on purpose, a framing attempt). The production build runs under its production policy
 * (proxy.ts).
 */
export const test = base.extend<BrowserGuard>({
  browserProblems: [
    async ({ browser, context }, use, testInfo) => {
      const problems: string[] = [];
      const allowedNow: RegExp[] = [];
      expectedErrors.set(testInfo.testId, allowedNow);
      const watch = async (watched: BrowserContext) => {
        // A violation is reported as a console error too, but the event says exactly what was blocked.
        await watched.addInitScript(() =>
          document.addEventListener("securitypolicyviolation", (event) =>
            console.error(
              `securitypolicyviolation: ${event.effectiveDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber}) on ${event.target instanceof Element ? event.target.outerHTML.slice(0, 160) : "the document"}`,
            ),
          ),
        );
        watched.on("console", (message) => {
          if (message.type() !== "error") return;
          const text = `${message.text()} [${message.location().url}]`;
          if (!allowedNow.some((pattern) => pattern.test(text))) problems.push(`console error: ${text}`);
        });
        watched.on("weberror", (error) => problems.push(`uncaught in the page: ${error.error().message}`));
      };
      await watch(context);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (...args) => {
        const created = await newContext(...args);
        await watch(created);
        return created;
      };
      await use();
      browser.newContext = newContext;
      expectedErrors.delete(testInfo.testId);
      expect(problems, "CSP violations and console errors in the browser").toEqual([]);
    },
    { auto: true },
  ],
});

const expectedErrors = new Map<string, RegExp[]>();

/** Allows console errors matching `pattern` for the rest of the running test. */
export function expectConsoleError(pattern: RegExp): void {
  expectedErrors.get(test.info().testId)?.push(pattern);
}

export const USERS = {
  platformAdmin: "admin@keyhook.test",
  support: "support@keyhook.test",
  districtAdmin: "admin@district-4417.test",
  otherDistrictAdmin: "admin@district-2210.test",
} as const;

// A sign-in costs a password hash and, for staff, a code of the demo key (one per 30 s step): a
// journey that is not about signing in resumes the session an earlier sign-in of that user made,
// while it is young enough that no step-up asks for a factor again (MFA_STEP_UP_MINUTES is 15).
// A session that has ended since (a sign-out, a reset) is dropped and the form used.
const KEEP_SESSION_MS = 10 * 60_000;
const keptSessions = new Map<string, { cookies: Cookie[]; at: number }>();
const isSessionCookie = (cookie: { name: string }) => cookie.name.endsWith("keyhook.session");

function keptSession(email: string): Cookie[] | null {
  const kept = keptSessions.get(email);
  return kept && Date.now() - kept.at < KEEP_SESSION_MS ? kept.cookies : null;
}

function keepSession(email: string, cookies: Cookie[]): void {
  keptSessions.set(email, { cookies: cookies.filter(isSessionCookie), at: Date.now() });
}

export async function signIn(page: Page, email: string): Promise<void> {
  const overview = page.getByRole("heading", { name: "Overview", exact: true });
  const kept = keptSession(email);
  if (kept) {
    await page.context().addCookies(kept);
    await page.goto("/overview");
    if (new URL(page.url()).pathname === "/overview") {
      await expect(overview).toBeVisible();
      return;
    }
    keptSessions.delete(email);
    await page.context().clearCookies();
  }
  await page.goto("/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  const secondStep = page.getByRole("heading", { name: "Second factor", exact: true });
  await expect(overview.or(secondStep)).toBeVisible();
  // Staff accounts prove the demo authenticator key (the seed enrols it; MFA_REQUIRED_ROLES).
  if (await secondStep.isVisible()) await proveDemoFactor(page, email);
  await expect(page).toHaveURL(/\/overview$/);
  await expect(overview).toBeVisible();
  keepSession(email, await page.context().cookies());
}

/** On the second step (or a step-up dialog): a code of the demo authenticator key, confirmed. */
export async function proveDemoFactor(page: Page, email: string): Promise<void> {
  await page.getByLabel("Code from your authenticator app").fill(await nextDemoCode(email));
  await page.getByRole("button", { name: "Confirm", exact: true }).click();
}

/** An API context holding a signed-in session (next-auth's own CSRF-protected credentials flow). */
export async function apiAs(baseURL: string, email: string | null): Promise<APIRequestContext> {
  const kept = email ? keptSession(email) : null;
  if (kept) {
    const resumed = await playwrightRequest.newContext({
      baseURL,
      maxRedirects: 0,
      storageState: { cookies: kept, origins: [] },
    });
    if ((await resumed.get("/overview")).status() === 200) return resumed;
    keptSessions.delete(email!);
    await resumed.dispose();
  }
  const context = await playwrightRequest.newContext({ baseURL, maxRedirects: 0 });
  if (!email) return context;
  const { csrfToken } = (await (await context.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await context.post("/api/auth/callback/credentials", {
    form: { csrfToken, email, password: DEMO_PASSWORD, json: "true" },
  });
  expect(response.status(), `sign-in of ${email}`).toBeLessThan(400);
  if ((await context.get("/signin/factor")).status() === 200) {
    const factor = await context.post("/api/auth/callback/mfa", {
      form: { csrfToken, totp: await nextDemoCode(email), json: "true" },
    });
    expect(factor.headers()["location"] ?? "", `second factor of ${email}`).not.toContain("error=");
  }
  const cookies = await context.storageState();
  expect(cookies.cookies.some(isSessionCookie), `session cookie for ${email}`).toBe(true);
  keepSession(email, cookies.cookies);
  return context;
}

export async function deliverSigned(
  api: APIRequestContext,
  input: KeyEventInput,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const event = buildKeyEvent(input);
  const signed = signDelivery({
    body: JSON.stringify(event),
    webhookId: String(event.id),
    secrets: [DEV_WEBHOOK_SECRET],
  });
  const response = await api.post("/api/webhooks/keys", { headers: signed.headers, data: signed.body });
  return { status: response.status(), body: (await response.json()) as Record<string, unknown> };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  // Wait for streamed sections to replace their loading skeletons.
  await expect(page.locator(".animate-pulse")).toHaveCount(0);
  await page.screenshot({ path: `e2e/artifacts/${name}.png`, fullPage: true });
}

/** The database the e2e server uses (playwright.config.ts: embedded PostgreSQL in .data/e2e). */
export const E2E_DATABASE_URL = `postgresql://keyhook:keyhook@127.0.0.1:${Number(process.env.E2E_PG_PORT ?? 54531)}/keyhook`;

/** One alert sweep, as the worker would run it, on the e2e server's database (no worker runs here). */
export function sweepAlerts(): void {
  execFileSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/alerts.ts", "sweep"], {
    env: { ...process.env, DATABASE_URL: E2E_DATABASE_URL, LOG_LEVEL: "warn" },
    stdio: "pipe",
  });
}

export const WIDTHS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;

/** Screenshots of the page as it is at 1280×800 and at 390×844 (back to 1280 after). */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await screenshot(page, `${name}-${size.name}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** How far the document is wider than the viewport (a phone zooms out rather than report it in clientWidth). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  const viewport = page.viewportSize()!.width;
  return page.evaluate((width) => document.documentElement.scrollWidth - width, viewport);
}
