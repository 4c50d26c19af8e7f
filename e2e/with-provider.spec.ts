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
import {
  apiAs,
  deliverSigned,
  E2E_DATABASE_URL,
  expect,
  screenshot,
  screenshotBothWidths,
  signIn,
  test,
  USERS,
  WIDTHS,
} from "./support";

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
const cardTitled = (page: Page, title: string) =>
  page.locator("section").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

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

  // An active key: no Issue form (the provider would refuse a second key); Rotate replaces it, away
  // from the row's Revoke, and confirms like a revoke, saying what happens next.
  const rotatedRow = page.locator(`tr[data-key-id="${firstId}"]`);
  await expect(page.getByRole("button", { name: "Issue key" })).toHaveCount(0);
  await expect(rotatedRow.getByRole("button", { name: /Rotate/ })).toHaveCount(0);
  const replace = cardTitled(page, "Replace the key");
  await expect(replace.getByTestId("new-key-help")).toContainText("The provider allows one active key at a time");
  await replace.getByRole("button", { name: `Rotate ${firstId}` }).click();
  const confirmRotate = replace.getByRole("alertdialog");
  await expect(confirmRotate).toContainText(
    `The provider issues a new key and deactivates ${firstId} at once: anything still using it stops working until it is given the new key.`,
  );
  await screenshotBothWidths(page, "provider-rotate-confirm");
  await replace.getByRole("button", { name: "Cancel" }).click();
  await expect(rotatedRow).toHaveAttribute("data-key-status", "active");
  expect(await apiCalls(/\/rotate$/)).toHaveLength(0);
  // Rotate: one provider call; the new key arrives as the provider's key.rotated.
  await replace.getByRole("button", { name: `Rotate ${firstId}` }).click();
  await replace.getByRole("button", { name: "Yes, rotate" }).click();
  await expect(replace.getByRole("status")).toContainText(`Rotation of ${firstId} requested from the provider`);
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
  const issue = cardTitled(page, "Issue a new key").locator("form");
  await issue.getByLabel("Scopes (space or comma separated)").fill("rosters:read grades:read");
  await issue.evaluate((form: HTMLFormElement) => {
    form.requestSubmit();
    form.requestSubmit();
  });
  const third = keyRows(page).and(page.locator('[data-key-status="active"]'));
  await expect(third).toHaveCount(1, { timeout: 30_000 });
  await expect(third).toContainText("rosters:read, grades:read");
  // One request on the page's list too, answered, its key active here.
  const issued = cardTitled(page, "Requests to the provider").locator('li[data-request-kind="key.issue"]');
  await expect(issued).toHaveCount(1);
  await expect(issued).toContainText("is active here");
  expect(await apiCalls(new RegExp(`^/v1/tenants/${tenantId}/keys$`))).toHaveLength(1);
  expect(await apiCalls(/\/rotate$/)).toHaveLength(1);
  expect(await apiCalls(new RegExp(`^/v1/tenants/${tenantId}/keys/[^/]+/revoke$`))).toHaveLength(1);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    expect(await page.evaluate((w) => document.documentElement.scrollWidth - w, size.width)).toBeLessThanOrEqual(0);
    await screenshot(page, `provider-issued-${size.name}`);
  }
});

test("an issue the provider refuses (it holds an active key we never heard of) is reported on the page and in the audit log", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const tenantId = "district-7320";
  await sim.control("POST", "/_sim/emit", { count: 1, tenants: [tenantId] });
  await signIn(page, USERS.platformAdmin);
  await expect.poll(async () => (await page.goto(`/districts/${tenantId}`))?.status(), { timeout: 30_000 }).toBe(200);
  const first = keyRows(page).and(page.locator('[data-key-status="active"]'));
  await expect(first).toHaveCount(1);
  const row = page.locator(`tr[data-key-id="${(await first.getAttribute("data-key-id"))!}"]`);
  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(row.getByTestId("revoke-state")).toContainText("confirmed by the provider at", { timeout: 30_000 });

  // The provider issues a key whose webhook we refuse (signed with a secret we do not hold): it is
  // active there, and here the district has none, so the form is offered.
  await sim.setFaults({ badSignatureNext: 1, badSignatureAttempts: 8 });
  await sim.control("POST", "/_sim/emit", { count: 1, tenants: [tenantId] });
  const issue = cardTitled(page, "Issue a new key");
  await issue.getByLabel("Scopes (space or comma separated)").fill("rosters:read");
  await issue.getByRole("button", { name: "Issue key" }).click();
  await expect(issue.getByRole("status")).toHaveText(
    "New key requested from the provider; it appears here when its webhook arrives.",
  );
  // The worker hears the provider's 409: on the page, live, in words, and for as long as it matters.
  const requests = cardTitled(page, "Requests to the provider");
  const refused = requests.locator('li[data-request-kind="key.issue"]').first();
  await expect(refused).toHaveAttribute("data-request-state", "failed", { timeout: 30_000 });
  await expect(refused.getByTestId("request-refusal")).toHaveText(
    "The provider refused: the district already has an active key at the provider, which allows one at a time: rotate that key instead of issuing another. Nothing changed at the provider.",
  );
  await screenshotBothWidths(page, "provider-issue-refused");
  // The audit log records the provider's answer, not "ok" for a request that failed.
  await page.goto(`/audit?action=keys&tenant=${tenantId}`);
  const audit = page.getByRole("table", { name: "Audit log" });
  await expect(audit.locator("tr").filter({ hasText: "Issue a key" }).first()).toContainText("refused by the provider");
  await expect(audit.locator("tr").filter({ hasText: "Issue a key" }).nth(1)).toContainText("requested");
  await screenshotBothWidths(page, "provider-issue-refused-audit");
  await sim.setFaults({ badSignatureNext: 0, badSignatureAttempts: 3 });
});

test("an issue into a district whose sequence is ahead of the provider's says why its key came out stale", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const tenantId = "district-7330";
  // Events sent by hand (as the README's Try it does) moved this district to sequence 6 here; the
  // provider has never heard of it and numbers its first event 1.
  const hand = await apiAs(baseURL!, null);
  await deliverSigned(hand, { type: "key.created", tenantId, keyId: "key_by_hand", sequence: 5 });
  await deliverSigned(hand, { type: "key.revoked", tenantId, keyId: "key_by_hand", sequence: 6 });
  await hand.dispose();
  await signIn(page, USERS.platformAdmin);
  await page.goto(`/districts/${tenantId}`);
  const issue = cardTitled(page, "Issue a new key");
  await issue.getByLabel("Scopes (space or comma separated)").fill("rosters:read");
  await issue.getByRole("button", { name: "Issue key" }).click();

  const requests = cardTitled(page, "Requests to the provider");
  const stale = requests.getByTestId("request-stale");
  await expect(stale).toBeVisible({ timeout: 30_000 });
  await expect(stale).toContainText("numbered its webhook sequence 1");
  await expect(stale).toContainText("This district already activated a key at sequence 5 here");
  const made = (await page.locator('tr[data-key-status="superseded"]').getAttribute("data-key-id"))!;
  await expect(page.locator(`tr[data-key-id="${made}"]`).getByTestId("arrived-stale")).toContainText(
    "arrived stale (sequence 1",
  );
  // It is the provider's active key: another issue would be refused there, so it is not offered.
  await expect(issue.getByText(`${made} may still be active at the provider`)).toBeVisible();
  await screenshotBothWidths(page, "provider-issue-stale");
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
  // The provider recorded one success per row; we hold three 200s each (the two answers it lost,
  // and the redelivery's): the rows say so.
  await page.goto("/deliveries?status=mismatched&tenant=district-7311");
  await expect(
    page.locator("tr[data-event-id]").filter({ hasText: "We answered 2xx more often than the provider recorded" }),
  ).toHaveCount(2);
  await screenshotBothWidths(page, "deliveries-answer-not-received");
  await page.goto("/deliveries?status=failed&tenant=district-7312");
  await expect(page.locator("tr[data-event-id]")).toHaveCount(1);
});
