// The alert center in the browser. A storm of quarantined events from one misrouted key
// is ONE alert with a count; the district's admin acknowledges and resolves it (audited), another
// district's admin never sees it; a platform admin asks for a drift check. No worker runs in the
// browser tests, so the spec runs the alert sweep itself (`npm run alerts -- sweep`) on the
// server's database.
import AxeBuilder from "@axe-core/playwright";
import { type Page } from "@playwright/test";
import pg from "pg";
import {
  expect,
  expectConsoleError,
  test,
  apiAs,
  deliverSigned,
  E2E_DATABASE_URL,
  screenshot,
  signIn,
  sweepAlerts as sweep,
  USERS,
} from "./support";

const sizes = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function shoot(page: Page, name: string) {
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await screenshot(page, `${name}-${size.name}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function expectAxeClean(page: Page) {
  const axe = await new AxeBuilder({ page }).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}

test("a storm from one misrouted key is one alert; the district admin acknowledges and resolves it", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const api = await apiAs(baseURL!, null);
  // A key of another district, then 12 events for district-4417 naming it: quarantined.
  await deliverSigned(api, {
    type: "key.created",
    tenantId: "district-e2e-alerts",
    keyId: "key_e2e_misrouted",
    sequence: 1,
  });
  for (let i = 0; i < 12; i++) {
    const answer = await deliverSigned(api, {
      // Short ids: the district page's timeline does not wrap a provider-length event id on a
      // phone (see the layout spec), and this spec's events land in that timeline.
      id: `evt_e2e_q${i}`,
      type: "key.revoked",
      tenantId: "district-4417",
      keyId: "key_e2e_misrouted",
      sequence: 950_000 + i,
    });
    expect(answer.body.outcome).toBe("quarantined");
  }
  sweep();

  await signIn(page, USERS.districtAdmin);
  await expect(page.getByTestId("open-alerts-line")).toContainText("open alert");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page.getByRole("heading", { name: "Alerts", exact: true })).toBeVisible();
  const row = page.getByTestId("alert-row").filter({ hasText: "key_e2e_misrouted" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("12 quarantined events");
  await expect(row).toContainText("open");
  await expectAxeClean(page);
  await shoot(page, "alerts-list");

  await row.getByRole("link").first().click();
  await expect(page.getByRole("heading", { name: /12 quarantined event/ })).toBeVisible();
  await expectAxeClean(page);
  await shoot(page, "alert-detail");
  const detailUrl = page.url();

  await page.getByRole("button", { name: "Acknowledge" }).click();
  await expect(page.getByText(/Acknowledged quarantine\/district-4417\/key_e2e_misrouted/).first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole("main")).toContainText("acknowledged by admin@district-4417.test (district_admin)");

  // Explained needs a note: the form says so and nothing changes.
  await page.getByLabel("How").selectOption("explained");
  await page.getByRole("button", { name: "Resolve" }).click();
  await expect(page.getByText("Say in the note why this is explained.").first()).toBeVisible();
  // (The form starts over after an answer: choose again.)
  await page.getByLabel("How").selectOption("explained");
  await page.getByLabel(/Note/).fill("the provider misrouted a test batch; they fixed it");
  await page.getByRole("button", { name: "Resolve" }).click();
  await expect(page.getByText(/Resolved quarantine\/district-4417\/key_e2e_misrouted/).first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole("main")).toContainText("resolved by admin@district-4417.test (district_admin)");
  await expect(page.getByRole("main")).toContainText("the provider misrouted a test batch");
  await expect(page.getByRole("main")).toContainText("Marked as explained");
  await expect(page.getByRole("main")).toContainText("Resolved: nothing left to do.");
  await shoot(page, "alert-detail-resolved");

  // Another district's admin: not in the list, and the detail is a 404.
  const other = await browser.newPage({ baseURL });
  await signIn(other, USERS.otherDistrictAdmin);
  await other.goto("/alerts?state=all");
  await expect(other.getByTestId("alert-row").filter({ hasText: "key_e2e_misrouted" })).toHaveCount(0);
  expectConsoleError(/status of 404 \(Not Found\) \[.*\/alerts\/\d+\]/);
  const denied = await other.goto(detailUrl);
  expect(denied?.status()).toBe(404);
  await other.close();

  // Support sees it (all districts), resolved.
  const support = await browser.newPage({ baseURL });
  await signIn(support, USERS.support);
  await support.goto("/alerts?state=resolved");
  await expect(support.getByTestId("alert-row").filter({ hasText: "key_e2e_misrouted" })).toHaveCount(1);
  await support.close();
});

test("a platform admin requests a drift check from the alert center", async ({ page }) => {
  await signIn(page, USERS.platformAdmin);
  await page.goto("/alerts");
  await page.getByRole("button", { name: "Run drift check" }).click();
  await expect(page.getByText(/Drift check \d+ requested/).first()).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("drift-run").first()).toContainText("requested");
  await shoot(page, "alerts-drift");
});

test("a drift alert shows both sides and the events that explain it; resolving it stages the provider revoke", async ({
  page,
}) => {
  // No provider runs in the browser tests: the row a drift check would write, as it writes it
  // (lib/operations/drift/run-drift-check.ts), for the demo district's first key (rotated here long ago).
  const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
  await client.connect();
  const details = {
    summary: "key_mv_01 is active at the provider but rotated here",
    fingerprint: "active|rotated",
    tenant_id: "district-4417",
    key_id: "key_mv_01",
    run_id: "0",
    provider: {
      status: "active",
      prefix: "ik_live_mv01",
      scopes: ["rosters:read"],
      created_at: "2026-11-28T08:00:00.000Z",
    },
    ours: {
      status: "rotated",
      prefix: "ik_live_mv01",
      activated_seq: 1,
      deactivated_seq: 2,
      last_event_id: "evt_demo_4417_2",
    },
  };
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO alerts (kind, subject, tenant_id, details) VALUES ('drift_provider_active', 'drift/district-4417/key_mv_01', 'district-4417', $1::jsonb) RETURNING id`,
    [JSON.stringify(details)],
  );
  await signIn(page, USERS.platformAdmin);
  await page.goto(`/alerts/${rows[0]!.id}`);
  await expect(
    page.getByRole("heading", { name: "key_mv_01 is active at the provider but rotated here" }),
  ).toBeVisible();
  await expect(page.getByRole("table", { name: "Ledger events for the key" })).toContainText("evt_demo_4417_1");
  await expectAxeClean(page);
  await shoot(page, "alert-detail-drift");

  await page.getByLabel("How").selectOption("revoke_requested");
  await page.getByRole("button", { name: "Resolve" }).click();
  await page.getByRole("button", { name: "Yes, resolve" }).click();
  await expect(page.getByText(/the revoke is staged for the provider \(outbox \d+\)/).first()).toBeVisible();
  const outbox = await client.query(`SELECT kind, payload FROM outbox WHERE idempotency_key LIKE 'drift-revoke:%'`);
  expect(outbox.rows).toEqual([{ kind: "key.revoke", payload: { tenantId: "district-4417", keyId: "key_mv_01" } }]);
  await client.end();
});
