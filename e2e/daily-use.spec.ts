// What a new user tripped over, checked the way they would see it, at 1280×800 and 390×844: a
// revoke confirmed on the row that was clicked, forms that keep what was typed, pages that fit a
// phone, answers shown once where they were asked for, alerts from background jobs appearing by
// themselves, a district admin's own Overview, and a wrong address that keeps the navigation.
// Each test works in districts of its own (district-73xx), so the demo districts other specs
// rely on are untouched.
import type { Page } from "@playwright/test";
import {
  apiAs,
  deliverSigned,
  expect,
  expectConsoleError,
  screenshot,
  screenshotBothWidths,
  sidewaysOverflow,
  signIn,
  sweepAlerts,
  test,
  USERS,
  WIDTHS,
} from "./support";

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });

async function markPage(page: Page) {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
}

async function expectSameDocument(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
}

test("a revoke is confirmed on the row that was clicked, live, and the row stays in view", async ({
  page,
  baseURL,
}) => {
  const provider = await apiAs(baseURL!, null);
  const keyId = `key_daily_${Date.now()}`;
  expect(
    (await deliverSigned(provider, { type: "key.created", tenantId: "district-7301", keyId, sequence: 1 })).body
      .outcome,
  ).toBe("applied");

  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    if (size.name === "1280") {
      await signIn(page, USERS.platformAdmin);
      await page.goto("/districts/district-7301");
      await markPage(page);
      const row = page.getByRole("table", { name: "Keys", exact: true }).locator(`tr[data-key-id="${keyId}"]`);
      await row.getByRole("button", { name: "Revoke" }).click();
      await row.getByRole("button", { name: "Yes, revoke" }).click();
      await expect(row.getByTestId("revoke-state")).toContainText("awaiting the provider's confirmation");
      // The row keeps the answer where its button was (no toast over the page), saying what was
      // done rather than a state that moves on: the status line above follows the provider.
      const answer = row.getByRole("status").filter({ hasText: `Revoked ${keyId} here` });
      await expect(answer).toHaveCount(1);
      await expect(page.getByTestId("action-result")).toHaveCount(0);
      await screenshot(page, "daily-revoke-awaiting-1280");

      // The provider's webhook arrives: the same row says so, without a reload.
      const confirmed = await deliverSigned(provider, {
        type: "key.revoked",
        tenantId: "district-7301",
        keyId,
        sequence: 2,
      });
      expect(confirmed.body.outcome).toBe("applied");
      await expect(row.getByTestId("revoke-state")).toContainText(/confirmed by the provider at \d{4}-\d\d-\d\d/);
      await expect(row.getByText("revoked", { exact: true })).toBeVisible();
      await expectSameDocument(page);
      await expect(page.getByTestId("inactive-keys")).toHaveCount(0);
      await expect(page.getByText(/Keys rotated or revoked in the last 15 minutes stay here/)).toBeVisible();
      await expect(answer).toHaveText(`Revoked ${keyId} here and sent the revoke to the provider.`);
      await expect(page.getByTestId("action-result")).toHaveCount(0);
    } else {
      await page.reload();
    }
    await expect(page.locator(`tr[data-key-id="${keyId}"]`).getByTestId("revoke-state")).toContainText(
      "confirmed by the provider at",
    );
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `daily-revoke-confirmed-${size.name}`);
  }
  await provider.dispose();
});

test("forms keep what was typed after a server error, with the error at the field; defaults are valid", async ({
  page,
}) => {
  await signIn(page, USERS.platformAdmin);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto("/users");
    const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Create user" }) });
    // The defaults: a district admin, whose district must be chosen (no preselected district).
    await expect(form.locator('select[name="role"]')).toHaveValue("district_admin");
    await expect(form.locator('select[name="tenantId"]')).toHaveValue("");
    expect(await form.locator('select[name="tenantId"]').evaluate((s: HTMLSelectElement) => s.required)).toBe(true);
    await form.locator('select[name="role"]').selectOption("support");
    await expect(form.getByText("None: staff see every district.")).toBeVisible();
    await form.locator('select[name="role"]').selectOption("district_admin");

    await form.getByLabel("Email").fill(USERS.support);
    await form.getByLabel("Name").fill(`Taken ${size.name}`);
    await form.locator('select[name="tenantId"]').selectOption("district-2210");
    await form.getByLabel(/Initial password/).fill("correct horse battery staple");
    await form.getByRole("button", { name: "Create user" }).click();
    const emailError = form.locator('[data-field="email"]');
    await expect(emailError).toHaveText("A user with this email exists");
    await expect(form.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
    // Everything typed is still there.
    await expect(form.getByLabel("Email")).toHaveValue(USERS.support);
    await expect(form.getByLabel("Name")).toHaveValue(`Taken ${size.name}`);
    await expect(form.locator('select[name="tenantId"]')).toHaveValue("district-2210");
    await expect(form.getByLabel(/Initial password/)).toHaveValue("correct horse battery staple");
    // The error sits right under its field.
    const field = await form.getByLabel("Email").boundingBox();
    const message = await emailError.boundingBox();
    expect(message!.y).toBeGreaterThanOrEqual(field!.y + field!.height - 1);
    expect(message!.y).toBeLessThan(field!.y + field!.height + 30);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `daily-users-form-error-${size.name}`);

    // Fixed, it goes through and the form empties.
    const email = `daily-${size.name}-${Date.now()}@district-2210.test`;
    await form.getByLabel("Email").fill(email);
    await form.getByRole("button", { name: "Create user" }).click();
    await expect(form.getByRole("status")).toHaveText(`Created ${email}.`);
    await expect(form.getByLabel("Email")).toHaveValue("");

    await page.goto("/settings");
    const channels = page.locator("form", { has: page.getByRole("button", { name: "Add channel" }) });
    await channels.getByLabel("Name").fill(`Pager ${size.name}`);
    await channels.getByLabel("Webhook URL, or the email recipients (comma separated)").fill("hooks.example.org/x");
    await channels.getByRole("button", { name: "Add channel" }).click();
    await expect(channels.locator('[data-field="target"]')).toHaveText(
      "The incoming webhook URL must be an http(s):// URL",
    );
    await expect(channels.getByLabel("Name")).toHaveValue(`Pager ${size.name}`);
    await expect(channels.getByLabel("Webhook URL, or the email recipients (comma separated)")).toHaveValue(
      "hooks.example.org/x",
    );
    await channels.scrollIntoViewIfNeeded();
    await screenshot(page, `daily-channel-form-error-${size.name}`);
  }
});

test("a replay's answer shows once, in full, next to its button; no message floats over the page", async ({
  page,
  baseURL,
}) => {
  const provider = await apiAs(baseURL!, null);
  const eventId = `evt_daily_replay_${Date.now()}`;
  await deliverSigned(provider, {
    id: eventId,
    type: "key.created",
    tenantId: "district-7303",
    keyId: `key_daily_r_${Date.now()}`,
    sequence: 1,
  });
  await provider.dispose();
  await signIn(page, USERS.support);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(`/deliveries?tenant=district-7303`);
    const row = page.locator(`tr[data-event-id="${eventId}"]`);
    await row.getByRole("button", { name: "Replay stored payload" }).click();
    const answer = row.getByRole("status");
    await expect(answer).toContainText(`Replayed ${eventId}: duplicate`);
    await expect(page.getByTestId("action-result")).toHaveCount(0);
    // Not cut off by its column: the whole text is inside the cell and inside its own box.
    const clipped = await answer.evaluate((element) => {
      const cell = element.closest("td")!.getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return element.scrollWidth > element.clientWidth + 1 || box.right > cell.right + 1 || box.left < cell.left - 1;
    });
    expect(clipped).toBe(false);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `daily-replay-answer-${size.name}`);
  }
});

test("alerts raised by a background job appear by themselves on /alerts and the Overview", async ({
  page,
  baseURL,
}) => {
  const provider = await apiAs(baseURL!, null);
  const stamp = Date.now();
  // A key of district-7304, then a misrouted event naming it under district-7305: quarantined.
  await deliverSigned(provider, {
    type: "key.created",
    tenantId: "district-7304",
    keyId: `key_a_${stamp}`,
    sequence: 1,
  });
  await signIn(page, USERS.support);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto("/alerts?state=open");
    await markPage(page);
    const keyId = size.name === "1280" ? `key_a_${stamp}` : `key_b_${stamp}`;
    if (size.name === "390")
      await deliverSigned(provider, { type: "key.created", tenantId: "district-7304", keyId, sequence: 2 });
    const misrouted = await deliverSigned(provider, {
      type: "key.revoked",
      tenantId: "district-7305",
      keyId,
      sequence: size.name === "1280" ? 1 : 2,
    });
    expect(misrouted.body.outcome).toBe("quarantined");
    // The quarantined event alone changes no alert: the sweep (the worker's job) raises it.
    sweepAlerts();
    const row = page.locator('[data-testid="alert-row"][data-kind="quarantine"]').filter({ hasText: keyId });
    await expect(row).toHaveCount(1, { timeout: 20_000 });
    await expectSameDocument(page);
    await screenshot(page, `daily-live-alert-${size.name}`);
  }

  // The Overview's alert line counts up by itself too.
  await page.goto("/overview");
  const line = page.getByTestId("open-alerts-line");
  const before = Number(/(\d+) open alert/.exec((await line.textContent()) ?? "")?.[1] ?? 0);
  await markPage(page);
  await deliverSigned(provider, {
    type: "key.revoked",
    tenantId: "district-7305",
    keyId: `key_b_${stamp}`,
    sequence: 3,
  });
  await deliverSigned(provider, {
    type: "key.created",
    tenantId: "district-7306",
    keyId: `key_c_${stamp}`,
    sequence: 1,
  });
  await deliverSigned(provider, {
    type: "key.revoked",
    tenantId: "district-7305",
    keyId: `key_c_${stamp}`,
    sequence: 4,
  });
  sweepAlerts();
  await expect
    .poll(async () => Number(/(\d+) open alert/.exec((await line.textContent()) ?? "")?.[1] ?? 0), { timeout: 20_000 })
    .toBeGreaterThan(before);
  await expectSameDocument(page);
  await provider.dispose();
});

test("the Overview chart has readable axes at both widths", async ({ page }) => {
  await signIn(page, USERS.platformAdmin);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto("/overview");
    // Measured once the chart is laid out in view (a streamed section is swapped in after the shell).
    const xAxis = page.getByTestId("chart-x-axis");
    await xAxis.scrollIntoViewIfNeeded();
    await expect(xAxis).toBeVisible();
    const yLabels = page.getByTestId("chart-y-axis").locator("span");
    await expect(yLabels).toHaveCount(5);
    const texts = await yLabels.allTextContents();
    expect(texts[4]).toBe("0");
    expect(Number(texts[0]!.replace(/,/g, ""))).toBeGreaterThan(0);
    const xLabels = await xAxis.locator("span").evaluateAll((spans) =>
      spans
        .filter((s) => getComputedStyle(s).visibility === "visible")
        .map((s) => {
          const range = document.createRange();
          range.selectNodeContents(s);
          const box = range.getBoundingClientRect();
          return { left: box.left, right: box.right, size: parseFloat(getComputedStyle(s).fontSize) };
        }),
    );
    expect(xLabels.length).toBeGreaterThanOrEqual(size.name === "390" ? 5 : 10);
    // Today's bar carries its own date at every width: a spike today never reads as yesterday's.
    const today = new Date().toISOString().slice(5, 10);
    await expect(xAxis.locator("span").last()).toHaveText(today);
    await expect(xAxis.locator("span").last()).toBeVisible();
    for (let i = 1; i < xLabels.length; i++) expect(xLabels[i]!.left).toBeGreaterThan(xLabels[i - 1]!.right);
    for (const label of xLabels) expect(label.size).toBeGreaterThanOrEqual(12);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.getByTestId("chart-y-axis").scrollIntoViewIfNeeded();
    await screenshot(page, `daily-overview-chart-${size.name}`);
  }
});

test("a district admin's Overview names the district and shows their key", async ({ page }) => {
  await signIn(page, USERS.otherDistrictAdmin);
  await expect(page.getByText("Riverside County Schools (district-2210), today (UTC).")).toBeVisible();
  await expect(page.getByTestId("your-key")).toContainText("Your key");
  await expect(page.getByText("Ledger size")).toHaveCount(0);
  await expect(page.getByText("Duplicates absorbed today")).toHaveCount(0);
  // Every figure opens something they may see.
  await page.getByRole("link", { name: /Events in quarantine/ }).click();
  await expect(page).toHaveURL(/\/ledger\?outcome=quarantined$/);
  await expect(page.getByRole("heading", { name: "Ledger", exact: true })).toBeVisible();
  await page.goto("/overview");
  await screenshotBothWidths(page, "daily-district-admin-overview");
});

test("an unknown address keeps the navigation for a signed-in user, and is a 404", async ({ page }) => {
  await signIn(page, USERS.districtAdmin);
  // The browser logs the 404 it is answered: that is the point here.
  expectConsoleError(/status of 404 \(Not Found\) \[.*\/no-such-page\]/);
  for (const size of WIDTHS) {
    await page.setViewportSize({ width: size.width, height: size.height });
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    await expect(nav(page).getByRole("link", { name: "Overview" })).toBeVisible();
    await expect(page.getByTestId("signed-in-as")).toContainText(USERS.districtAdmin);
    await screenshot(page, `daily-not-found-${size.name}`);
  }
  await nav(page).getByRole("link", { name: "Districts" }).click();
  await expect(page).toHaveURL(/\/districts\/district-4417$/);
});

test("each role reads pages in its own words: the audit log's groups, a district admin's alert kinds, support's quarantine advice", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  // Support: the audit log opens on what people changed, not on the sign-ins that fill it.
  await signIn(page, USERS.support);
  await page.goto("/audit");
  await expect(page.getByLabel("What")).toHaveValue("changes");
  const audit = page.getByRole("table", { name: "Audit log" });
  await expect(audit.or(page.getByText("No entries match"))).toBeVisible();
  await expect(audit.getByText("Sign in", { exact: true })).toHaveCount(0);
  await screenshotBothWidths(page, "daily-audit-changes");
  await page.getByLabel("What").selectOption("signins");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(
    page.getByRole("table", { name: "Audit log" }).getByText("Sign in", { exact: true }).first(),
  ).toBeVisible();
  // Quarantine's advice fits a role that may not revoke.
  await page.goto("/quarantine");
  await expect(page.getByText("Your role may not revoke a key")).toBeVisible();
  await screenshotBothWidths(page, "daily-quarantine-support");
  await page.goto("/deliveries");
  await expect(page.getByRole("heading", { name: "Deliveries", exact: true })).toBeVisible();
  await screenshotBothWidths(page, "daily-deliveries-support");

  // A district admin: no platform-wide alert kinds to filter by, no sequence numbers.
  const context = await browser.newContext({ baseURL });
  page = await context.newPage();
  await signIn(page, USERS.districtAdmin);
  await page.goto("/alerts");
  const kinds = await page.getByLabel("Kind").locator("option").allTextContents();
  expect(kinds).toContain("Quarantined events");
  expect(kinds).not.toContain("Retention purge failed");
  expect(kinds).not.toContain("Provider unreachable");
  await screenshotBothWidths(page, "daily-alerts-district-admin");
  await page.goto("/districts/district-4417");
  await expect(page.getByTestId("district-sequences")).toHaveText("district-4417");
  await context.close();
});
