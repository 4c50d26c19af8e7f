// The Retention form in the browser: a provider retry horizon below its floor is refused under
// that field, saying which bound applies, with what was typed kept; the floor is explained there.
import { expect, screenshot, signIn, test, USERS } from "./support";

test("the Retention form refuses a horizon below PROVIDER_RETRY_HORIZON_HOURS, next to the field", async ({ page }) => {
  await signIn(page, USERS.platformAdmin);
  await page.goto("/retention");
  const horizon = page.getByLabel("Provider retry horizon (h)");
  await expect(horizon).toHaveAccessibleDescription("At least 28 h (PROVIDER_RETRY_HORIZON_HOURS)");
  await expect(page.getByText(/at least 28 h, as PROVIDER_RETRY_HORIZON_HOURS is 28 h/)).toBeVisible();

  await page.getByLabel("Retention (days)", { exact: true }).fill("2");
  await horizon.fill("23");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(
    page
      .locator('[data-result="error"][data-field="retryHorizonHours"]')
      .filter({ hasText: "must be at least 28 h, not 23 h" }),
  ).toBeVisible();
  await expect(horizon).toHaveAttribute("aria-invalid", "true");
  await expect(horizon).toHaveAccessibleDescription(/The provider retry horizon must be at least 28 h, not 23 h/);
  // What was typed is still there to correct.
  await expect(page.getByLabel("Retention (days)", { exact: true })).toHaveValue("2");
  await expect(horizon).toHaveValue("23");
  for (const [name, width, height] of [
    ["desktop", 1280, 800],
    ["phone", 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await screenshot(page, `retention-horizon-refused-${name}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByLabel("Retention (days)", { exact: true }).fill("14");
  await horizon.fill("28");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("main").getByText(/^Saved: claims kept 14 days/)).toBeVisible();
  await expect(horizon).not.toHaveAttribute("aria-invalid");
});
