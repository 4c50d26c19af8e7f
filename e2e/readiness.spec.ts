// Issue 12 in the browser: the Readiness page runs the check and shows each step's fix; sequence
// gaps on the district page and overview; per-secret usage on Settings; the canary stays hidden.
// No provider runs here, so the check falls back to locally signed events and says the delivery
// history cannot be reconciled, and no purge has run yet: "not ready", with what to fix.
import { expect, test, type Page } from "@playwright/test";
import { apiAs, deliverSigned, screenshot, signIn, USERS } from "./support";

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

test("a platform admin runs the readiness check and sees what is missing", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, USERS.platformAdmin);
  await expect(page.getByTestId("readiness-line")).toContainText("not checked yet");
  await page.getByRole("link", { name: "Readiness", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Retry readiness", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Run the readiness check now" }).click();
  // The result shows where the button is.
  await expect(page.getByRole("main").getByText(/Not ready for retries: 2 of 4 steps failed/)).toBeVisible({
    timeout: 60_000,
  });
  // A run that found problems is bad news: the answer says so in the error style, not as a success.
  await expect(
    page
      .getByRole("main")
      .locator("[data-result]")
      .filter({ hasText: /Not ready for retries/ }),
  ).toHaveAttribute("data-result", "error");
  await page.reload();
  await expect(page.getByTestId("readiness-step-duplicate_delivery")).toContainText("pass");
  await expect(page.getByTestId("readiness-step-forced_failure")).toContainText("answered 503");
  await expect(page.getByTestId("readiness-step-delivery_history")).toContainText("No webhook is registered");
  await expect(page.getByTestId("readiness-step-retention")).toContainText("npm run purge");
  await shoot(page, "readiness");

  await page.goto("/overview");
  await expect(page.getByTestId("readiness-line")).toContainText("not ready");
  await shoot(page, "overview-readiness");
});

test("a gap in a district's sequence shows on its page and the overview", async ({ page, baseURL }) => {
  const api = await apiAs(baseURL!, null);
  for (const sequence of [1, 2, 5]) {
    expect(
      (
        await deliverSigned(api, {
          type: "key.revoked",
          tenantId: "district-7700",
          keyId: `key_gap_${sequence}`,
          sequence,
        })
      ).status,
    ).toBe(200);
  }
  await signIn(page, USERS.support);
  await page.goto("/districts/district-7700");
  await expect(page.getByRole("table", { name: "Open sequence gaps" })).toContainText("3–4");
  await shoot(page, "district-gaps");
  await page.goto("/overview");
  await expect(page.getByRole("table", { name: "Open sequence gaps" })).toContainText("district-7700");

  await deliverSigned(api, { type: "key.revoked", tenantId: "district-7700", keyId: "key_gap_3", sequence: 3 });
  await deliverSigned(api, { type: "key.revoked", tenantId: "district-7700", keyId: "key_gap_4", sequence: 4 });
  await page.goto("/districts/district-7700");
  await expect(page.getByTestId("no-gaps")).toBeVisible();
});

test("Settings shows what each secret verified; the canary is in no district list", async ({ page }) => {
  await signIn(page, USERS.platformAdmin);
  await page.goto("/settings");
  await expect(page.getByRole("table", { name: "Secret usage" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Secret usage" })).toContainText("in use");
  await shoot(page, "settings-telemetry");
  await page.goto("/districts");
  await expect(page.getByText("keyhook-readiness-canary")).toHaveCount(0);
  const notFound = await page.goto("/districts/keyhook-readiness-canary");
  expect(notFound?.status()).toBe(404);
});

test("a district admin has no readiness page", async ({ page }) => {
  await signIn(page, USERS.districtAdmin);
  await expect(page.getByTestId("readiness-line")).toHaveCount(0);
  const response = await page.goto("/readiness");
  expect(response?.status()).toBe(404);
});
