// The dashboard against the provider simulator and a worker, in the browser: Issue, Rotate and
// Revoke on a district page go through the outbox to the provider and come back as its webhooks
// (on the row that was clicked, live); bulk redelivery acts on exactly the rows the Deliveries
// list shows with its filters. This spec starts the simulator on the port the e2e server calls
// (E2E_PROVIDER_PORT) and a worker on the e2e server's database; its file name sorts it after
// every spec that needs "no provider" (files run in name order, one at a time; each e2e run
// starts from a fresh database).
import { spawn, type ChildProcess } from "node:child_process";
import type { Page } from "@playwright/test";
import { startSimulator, type SimulatorProcess } from "../test/support/simulator";
import { E2E_DATABASE_URL, expect, screenshot, signIn, test, USERS, WIDTHS } from "./support";

const appPort = Number(process.env.E2E_PORT ?? 4531);
const providerPort = Number(process.env.E2E_PROVIDER_PORT ?? 4539);

let sim: SimulatorProcess;
let worker: ChildProcess;

type ApiCall = { method: string; path: string; status: number };
const apiCalls = async (pathPattern: RegExp) =>
  (await sim.control<{ calls: ApiCall[] }>("GET", "/_sim/api-calls")).calls.filter(
    (call) => call.method === "POST" && pathPattern.test(call.path),
  );

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  sim = await startSimulator({ env: { PROVIDER_SIM_PORT: String(providerPort), PROVIDER_SIM_DATA_DIR: "memory" } });
  worker = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "server/worker.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: E2E_DATABASE_URL,
      PROVIDER_URL: sim.url,
      PROVIDER_WEBHOOK_URL: `http://127.0.0.1:${appPort}/api/webhooks/keys`,
      // Only what these tests need from it: the outbox, the registration. No scheduled drift check.
      DRIFT_CHECK_INTERVAL_HOURS: "0",
      ALERT_NOTIFY_INTERVAL_MS: "600000",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // The worker registers our webhook at the provider first.
  await expect
    .poll(async () => (await sim.control<{ hooks: number }>("GET", "/_sim/health")).hooks, {
      timeout: 60_000,
    })
    .toBe(1);
});

test.afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.kill("SIGTERM");
    await exited;
  }
  await sim?.dispose();
});

const keyRows = (page: Page) => page.getByRole("table", { name: "Keys", exact: true }).locator("tr[data-key-id]");

test("Rotate, Revoke and Issue on a district page reach the provider and come back on the page by themselves", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const tenantId = "district-7310";
  // The provider issues the district's first key; its webhook creates the district here.
  await sim.control("POST", "/_sim/emit", { count: 1, tenants: [tenantId] });
  await signIn(page, USERS.platformAdmin);
  await expect.poll(async () => (await page.goto(`/districts/${tenantId}`))?.status(), { timeout: 30_000 }).toBe(200);
  const first = keyRows(page).and(page.locator('[data-key-status="active"]'));
  await expect(first).toHaveCount(1);
  const firstId = (await first.getAttribute("data-key-id"))!;

  // Rotate: one provider call; the new key arrives as the provider's key.rotated.
  const rotatedRow = page.locator(`tr[data-key-id="${firstId}"]`);
  await rotatedRow.getByRole("button", { name: "Rotate" }).click();
  await expect(page.getByText(`Rotation of ${firstId} requested from the provider`).first()).toBeVisible();
  await expect(rotatedRow).toHaveAttribute("data-key-status", "rotated", { timeout: 30_000 });
  const second = keyRows(page).and(page.locator('[data-key-status="active"]'));
  await expect(second).toHaveCount(1);
  const secondId = (await second.getAttribute("data-key-id"))!;
  expect(secondId).not.toBe(firstId);
  await screenshot(page, "provider-rotated-1280");

  // Revoke: applied here at once, confirmed on the same row when the provider's webhook arrives.
  const secondRow = page.locator(`tr[data-key-id="${secondId}"]`);
  await secondRow.getByRole("button", { name: "Revoke" }).click();
  await secondRow.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(secondRow.getByTestId("revoke-state")).toContainText(/awaiting|confirmed/);
  await expect(secondRow.getByTestId("revoke-state")).toContainText("confirmed by the provider at", {
    timeout: 30_000,
  });
  await screenshot(page, "provider-revoke-confirmed-1280");

  // Issue, submitted twice at once (a double click the button's own guard would not catch):
  // one staged call, one key.
  const issue = page.locator("form", { has: page.getByRole("button", { name: "Issue key" }) });
  await issue.getByLabel("Scopes (space or comma separated)").fill("rosters:read grades:read");
  await issue.evaluate((form: HTMLFormElement) => {
    form.requestSubmit();
    form.requestSubmit();
  });
  await expect(issue.getByRole("status")).toHaveText(
    /New key requested from the provider|This request was already sent/,
  );
  const third = keyRows(page).and(page.locator('[data-key-status="active"]'));
  await expect(third).toHaveCount(1, { timeout: 30_000 });
  await expect(third).toContainText("rosters:read, grades:read");
  expect(await apiCalls(new RegExp(`^/v1/tenants/${tenantId}/keys$`))).toHaveLength(1);
  expect(await apiCalls(/\/rotate$/)).toHaveLength(1);
  expect(await apiCalls(new RegExp(`^/v1/tenants/${tenantId}/keys/[^/]+/revoke$`))).toHaveLength(1);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    expect(await page.evaluate((w) => document.documentElement.scrollWidth - w, size.width)).toBeLessThanOrEqual(0);
    await screenshot(page, `provider-issued-${size.name}`);
  }
});

test("bulk redelivery: the dry run names exactly the listed failed rows, the run redelivers them", async ({ page }) => {
  test.setTimeout(180_000);
  // Every answer "lost": the provider records failures although we applied the events.
  await sim.setFaults({ lostResponseRate: 1 });
  const ours = (
    await sim.control<{ event_ids: string[] }>("POST", "/_sim/emit", { count: 2, tenants: ["district-7311"] })
  ).event_ids;
  const others = (
    await sim.control<{ event_ids: string[] }>("POST", "/_sim/emit", { count: 1, tenants: ["district-7312"] })
  ).event_ids;
  await signIn(page, USERS.support);
  const list = "/deliveries?status=failed&tenant=district-7311";
  // Both rows failed twice (at once and 5 s later): the next scheduled retry is minutes away, so
  // the redeliveries are the only attempts that can succeed during the test.
  await expect
    .poll(
      async () => {
        await page.goto(list);
        return page.locator("tr[data-event-id]").filter({ hasText: "2 attempts" }).count();
      },
      { timeout: 45_000 },
    )
    .toBe(2);
  await sim.setFaults({ lostResponseRate: 0 });

  const bulk = page.locator("section").filter({ has: page.getByRole("heading", { name: /Bulk redelivery/ }) });
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(list);
    await expect(bulk.getByTestId("bulk-count")).toHaveText("2 failed deliveries");
    await bulk.getByRole("button", { name: "Dry run: name them" }).click();
    const dryRun = bulk.locator("form").first().getByRole("status");
    await expect(dryRun).toContainText("Dry run: 2 failed deliveries of this list would be redelivered");
    for (const eventId of ours) await expect(dryRun).toContainText(eventId);
    for (const eventId of others) await expect(dryRun).not.toContainText(eventId);
    await screenshot(page, `provider-bulk-dry-run-${size.name}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await apiCalls(/\/redeliver$/)).toHaveLength(0);

  await bulk.getByRole("button", { name: "Redeliver 2 failed deliveries" }).click();
  await bulk.getByRole("button", { name: "Yes, redeliver" }).click();
  await expect(
    bulk.getByRole("status").filter({ hasText: "The provider is redelivering 2 failed deliveries" }),
  ).toBeVisible();
  const redelivered = await apiCalls(/\/redeliver$/);
  expect(redelivered).toHaveLength(2);
  // Each by its latest attempt (.../deliveries/<hook>/<attempt>/redeliver), and only this list's rows.
  const hookId = redelivered[0]!.path.split("/").at(-3)!;
  const attempts = await sim.control<{ items: { id: string; event_id: string; trigger: string }[] }>(
    "GET",
    `/v1/account/webhooks/deliveries/${hookId}?limit=250`,
  );
  // Newest first; the redeliveries' own (manual) attempts may already be there.
  const latest = new Map<string, string>();
  for (const attempt of attempts.items)
    if (attempt.trigger === "scheduled" && !latest.has(attempt.event_id)) latest.set(attempt.event_id, attempt.id);
  expect(redelivered.map((call) => call.path.split("/").at(-2)).sort()).toEqual(
    ours.map((eventId) => latest.get(eventId)).sort(),
  );
  // The redeliveries arrive (answered "duplicate"): the list has nothing failed left, live.
  await expect(bulk.getByTestId("bulk-count")).toHaveText("0 failed deliveries", { timeout: 30_000 });
  await expect(bulk.getByRole("button", { name: "Redeliver 0 failed deliveries" })).toBeDisabled();
  await expect(bulk.getByText("Nothing to redeliver: no delivery in this list failed.")).toBeVisible();
  await screenshot(page, "provider-bulk-done-1280");
  await page.goto("/deliveries?status=failed&tenant=district-7312");
  await expect(page.locator("tr[data-event-id]")).toHaveCount(1);
});
