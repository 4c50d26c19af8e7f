// Sign-in hardening on the production build: an old session cookie is dead after sign-out (in
// every browser it was copied to), /signin?error= shows only our own sentences, and the action
// wrapper refuses a denied server action.
import { expect, expectConsoleError, test, screenshot, signIn, USERS } from "./support";

test("an old session cookie is refused after sign-out, also in another browser", async ({ page, browser, baseURL }) => {
  await signIn(page, USERS.support);
  const cookies = (await page.context().cookies()).filter((c) => c.name.endsWith("keyhook.session"));
  expect(cookies).toHaveLength(1);
  // A second browser holding a copy of the same cookie is signed in too ...
  const copy = await browser.newContext({ baseURL });
  await copy.addCookies(cookies);
  const copyPage = await copy.newPage();
  await copyPage.goto("/overview");
  await expect(copyPage.getByRole("heading", { name: "Overview", exact: true })).toBeVisible();
  // ... until the user signs out in the first one: every session of the user ends (its live
  // poll is refused 401 meanwhile, which the browser reports).
  expectConsoleError(/status of 401 \(Unauthorized\) \[.*\/live\]/);
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
  await copyPage.goto("/overview");
  await expect(copyPage).toHaveURL(/\/signin/);
  await copy.close();
});

test("/signin?error= shows only known codes; any other text becomes one generic sentence", async ({ page }) => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.goto(`/signin?error=${encodeURIComponent("Your account is locked. Call +1 555 0100 to unlock it.")}`);
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("Sign-in failed. Try again.");
    await expect(page.getByText("555 0100")).toHaveCount(0);
    await screenshot(page, `signin-unknown-error-${viewport.width}`);
    await page.goto("/signin?error=SignInUnavailable");
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText(
      "Sign-in is unavailable right now. Try again in a moment.",
    );
    await screenshot(page, `signin-unavailable-${viewport.width}`);
  }
});
