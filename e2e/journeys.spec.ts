// Each role's main journey in the production build, with screenshots saved as artifacts.
import {
  expect,
  expectConsoleError,
  test,
  apiAs,
  deliverSigned,
  screenshot,
  screenshotBothWidths,
  signIn,
  USERS,
} from "./support";

test("a district admin revokes a key and sees it revoked, then confirmed", async ({ page, baseURL }) => {
  await signIn(page, USERS.districtAdmin);
  await screenshot(page, "district-admin-overview");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Districts" }).click();
  // A district admin has one district: "Districts" opens it directly.
  await expect(page).toHaveURL(/\/districts\/district-4417$/);
  await expect(page.getByRole("heading", { name: "Maple Valley Unified", exact: true })).toBeVisible();
  await expect(page.getByText("Riverside County Schools")).toHaveCount(0);

  const row = page.locator('tr[data-key-id="key_mv_02"]');
  await expect(row.getByText("active")).toBeVisible();
  // Their only key: the confirmation says the district is left without one, and whom to ask for
  // the next (a district admin may not issue).
  await row.getByRole("button", { name: "Revoke" }).click();
  const confirm = row.getByRole("alertdialog");
  await expect(confirm).toContainText("cannot be undone");
  await expect(confirm).toContainText(
    "district-4417 will be left without a key, and only a platform admin can issue a new one: ask Platform Admin (admin@keyhook.test).",
  );
  await screenshotBothWidths(page, "district-admin-revoke-confirm");
  // "Yes" answers at once on the row, while the server works (held back here to see it).
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/districts/district-4417", async (route) => {
    if (route.request().method() === "POST") await held;
    await route.continue();
  });
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(row.getByRole("button", { name: "Working…" })).toBeDisabled();
  release();
  // The answer stays on the row that was asked (not in a toast over the page), and says what was
  // done, not a state that moves on; the row's own status line follows the provider.
  await expect(row.getByRole("status")).toHaveText("Revoked key_mv_02 here and sent the revoke to the provider.");
  await expect(page.getByTestId("action-result")).toHaveCount(0);
  await page.unroute("**/districts/district-4417");
  await expect(row.getByTestId("revoke-state")).toContainText("awaiting the provider's confirmation");
  await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
  await expect(page.getByTestId("new-key-help")).toHaveText(
    "This district has no active key. Only a platform admin can issue one: ask Platform Admin (admin@keyhook.test).",
  );
  await screenshotBothWidths(page, "district-admin-revoked-awaiting");
  // The Overview says the same, and no longer "None besides your key" without a key.
  await page.goto("/overview");
  await expect(page.getByTestId("your-key")).toContainText(
    "No active key: only a platform admin can issue one; ask Platform Admin (admin@keyhook.test).",
  );
  await expect(page.getByText("None besides your key")).toHaveCount(0);
  await screenshotBothWidths(page, "district-admin-overview-no-key");
  await page.goto("/districts/district-4417");

  // The provider confirms with its own signed key.revoked webhook (what the outbox call causes).
  const provider = await apiAs(baseURL!, null);
  const answer = await deliverSigned(provider, {
    type: "key.revoked",
    tenantId: "district-4417",
    keyId: "key_mv_02",
    sequence: 3,
  });
  expect(answer).toMatchObject({ status: 200, body: { outcome: "applied" } });
  await provider.dispose();

  await page.reload();
  // Confirmed, on the same row: a just-revoked key stays with the current keys for a while.
  await expect(page.locator('tr[data-key-id="key_mv_02"]').getByTestId("revoke-state")).toContainText(
    "confirmed by the provider at",
  );
  await screenshot(page, "district-admin-revoke-confirmed");
});

test("support replays a delivery and sees duplicate", async ({ page, baseURL }) => {
  const provider = await apiAs(baseURL!, null);
  const eventId = `evt_e2e_${Date.now()}`;
  const first = await deliverSigned(provider, {
    id: eventId,
    type: "key.created",
    tenantId: "district-0935",
    keyId: `key_e2e_${Date.now()}`,
    sequence: 100,
  });
  expect(first.body.outcome).toBe("applied");
  await provider.dispose();

  await signIn(page, USERS.support);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Deliveries" }).click();
  await expect(page.getByRole("heading", { name: "Deliveries", exact: true })).toBeVisible();
  // No provider runs in this test: the page says so and still shows our receipts.
  await expect(page.getByText(/Provider unreachable|No webhook is registered/).first()).toBeVisible();
  const row = page.locator(`[data-event-id="${eventId}"]`);
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: "Replay stored payload" }).click();
  // The answer shows where it was asked for, once (no copy floating over the page).
  await expect(row.getByRole("status")).toContainText(`Replayed ${eventId}: duplicate`);
  await expect(page.getByTestId("action-result")).toHaveCount(0);
  await screenshot(page, "support-replay-duplicate");

  // Bulk redelivery acts on the list's failed deliveries at the provider: with no webhook
  // registered there are none to know of, and the card says why instead of offering buttons
  // (with-provider.spec.ts runs it against the provider simulator).
  const bulk = page
    .locator("section")
    .filter({ has: page.getByRole("heading", { name: "Bulk redelivery of this list's failed deliveries" }) });
  await expect(bulk.getByTestId("bulk-window")).toContainText("→ now");
  await expect(bulk.getByTestId("bulk-unavailable")).toHaveText("No webhook is registered with the provider yet.");
  await screenshot(page, "support-bulk-replay-result");

  // Filters: failed only, one district; the window keeps second precision in the URL.
  const filters = page.getByRole("form", { name: "Delivery filters" });
  await filters.getByLabel("Status").selectOption("failed");
  await filters.getByLabel("District").fill("district-0935");
  await filters.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/status=failed/);
  await expect(page).toHaveURL(/from=\d{4}-\d{2}-\d{2}(T|\+|%20)\d{2}(%3A|:)\d{2}(%3A|:)\d{2}/);
  await expect(page.locator(`[data-event-id="${eventId}"]`)).toHaveCount(0);
  await filters.getByLabel("Status").selectOption("all");
  await filters.getByRole("button", { name: "Show" }).click();
  await expect(page.locator(`[data-event-id="${eventId}"]`)).toBeVisible();

  // The replay is in the audit log with its outcome.
  await page.goto(`/audit?action=delivery.replay`);
  await expect(page.getByRole("table", { name: "Audit log" })).toContainText(eventId);
  await expect(page.getByRole("table", { name: "Audit log" })).toContainText("duplicate");
  await screenshot(page, "support-audit-log");
});

test("an admin filters the ledger and opens an event", async ({ page }) => {
  await signIn(page, USERS.platformAdmin);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Ledger" }).click();
  const filters = page.getByRole("form", { name: "Ledger filters" });
  await filters.getByLabel("District").fill("district-4417");
  await filters.getByLabel("Outcome").selectOption("applied");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/tenant=district-4417/);
  const table = page.getByRole("table", { name: "Ledger" });
  await expect(table.getByRole("link", { name: "evt_demo_4417_1" })).toBeVisible();
  await expect(table).not.toContainText("district-2210");
  await screenshot(page, "admin-ledger-filtered");

  // Bad input is a form error, not a crash.
  await page.goto("/ledger?outcome=exploded&from=yesterday");
  await expect(page.getByRole("alert").filter({ hasText: "Outcome must be one of" })).toBeVisible();

  await page.goto("/ledger?tenant=district-4417&outcome=applied");
  await page.getByRole("link", { name: "evt_demo_4417_1" }).click();
  await expect(page.getByRole("heading", { name: "evt_demo_4417_1", exact: true })).toBeVisible();
  await expect(page.getByText('"tenant_id": "district-4417"')).toBeVisible();
  await expect(page.getByRole("table", { name: "Receipts" })).toContainText("applied");
  await screenshot(page, "admin-ledger-event");

  // The filtered ledger exports as CSV.
  const csv = await page.request.get("/ledger/export?tenant=district-4417");
  expect(csv.headers()["content-type"]).toContain("text/csv");
  const text = await csv.text();
  expect(text.split("\r\n")[0]).toBe(
    "ledger_id,tenant_id,event_id,type,key_id,sequence,outcome,reason,received_at,processing_micros",
  );
  expect(text).toContain("evt_demo_4417_1");
  expect(text).not.toContain("district-2210");
});

test("the dashboard is usable on a phone", async ({ browser, baseURL }) => {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  await signIn(page, USERS.platformAdmin);
  await screenshot(page, "phone-overview");
  await page.goto("/districts/district-0935");
  await expect(page.getByRole("heading", { name: "Cedar Hills ISD", exact: true })).toBeVisible();
  // Nothing wider than the screen except inside a scrolling table.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await screenshot(page, "phone-district");
  await context.close();
});

test("sign out ends the session; a wrong password is a form error", async ({ page }) => {
  // next-auth answers a refused sign-in 401, which the browser reports.
  expectConsoleError(/status of 401 \(Unauthorized\) \[.*\/api\/auth\/callback\/credentials\]/);
  await signIn(page, USERS.otherDistrictAdmin);
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto("/overview");
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel("Email").fill(USERS.otherDistrictAdmin);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Invalid email or password." })).toBeVisible();
  await screenshot(page, "signin-error");
});
