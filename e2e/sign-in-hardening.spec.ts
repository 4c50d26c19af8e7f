// Sign-in hardening on the production build: an old session cookie is dead after sign-out (in
// every browser it was copied to), /signin?error= shows only our own sentences, and the action
// wrapper refuses a denied server action.
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import {
  expect,
  expectConsoleError,
  test,
  screenshot,
  screenshotBothWidths,
  signIn,
  USERS,
  proveDemoFactor,
} from "./support";

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

test("before its script runs, the sign-in form sends no password in any URL and its buttons are disabled", async ({
  page,
}) => {
  // Hold every script of the page back: the window between the HTML and hydration, made long.
  let releaseScripts!: () => void;
  const scriptsHeld = new Promise<void>((resolve) => (releaseScripts = resolve));
  await page.route("**/_next/static/**/*.js", async (route) => {
    await scriptsHeld;
    await route.continue();
  });
  const secret = "pre-hydration-secret-4417";
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  await page.goto("/signin", { waitUntil: "commit" });
  await page.getByLabel("Email").fill(USERS.support);
  await page.getByLabel("Password").fill(secret);
  const submit = page.getByRole("button", { name: "Sign in" });
  const disabledBeforeScripts = await submit.isDisabled();
  await screenshotBothWidths(page, "signin-before-scripts");
  // Enter in the password field and a click on the button: what a hurried person does.
  await page.getByLabel("Password").press("Enter");
  await submit.click({ force: true });
  // A native submission, had there been one, navigates: wait for any such request to be seen.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  releaseScripts();
  await expect(page.getByLabel("Password")).toBeVisible();
  expect(page.url()).not.toContain(secret);
  expect(urls.filter((url) => url.includes(secret) || url.includes("password="))).toEqual([]);
  expect(disabledBeforeScripts, "the submit button looks disabled until it works").toBe(true);
  await expect(submit).toBeEnabled();
  // Once ready, the same form signs in (the person's typing kept).
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await submit.click();
  // Support must prove its second factor next (the demo key).
  await expect(page).toHaveURL(/\/signin\/factor/);
  await proveDemoFactor(page, USERS.support);
  await expect(page).toHaveURL(/\/overview$/);
  expect(urls.filter((url) => url.includes("password="))).toEqual([]);
  await page.goBack();
  expect(page.url()).not.toContain("password");
});

test("a form POST that reaches /signin without the script shows the page again and echoes nothing", async ({
  page,
}) => {
  const response = await page.request.post("/signin", {
    form: { email: USERS.support, password: "posted-secret-2210" },
    maxRedirects: 0,
  });
  expect(response.status()).toBeLessThan(500);
  expect(await response.text()).not.toContain("posted-secret-2210");
});
