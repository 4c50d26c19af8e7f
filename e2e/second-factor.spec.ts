// Second factors in Chromium against the production build: a new staff account must enrol
// (an authenticator app: the code computed here from the key the page shows), gets ten recovery
// codes, signs in with a code, spends a recovery code once; a passkey through Chromium's virtual
// authenticator; a revoke asks for a factor again once the last one is older than
// MFA_STEP_UP_MINUTES; a platform admin resets someone's factors.
import type { BrowserContext, Page } from "@playwright/test";
import { decode, encode } from "next-auth/jwt";
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import { DEV_AUTH_SECRET } from "../lib/core/config/env";
import { nextDemoCode } from "../test/support/demo-totp";
import { apiAs, deliverSigned, expect, expectConsoleError, screenshotBothWidths, signIn, test, USERS } from "./support";

test.describe.configure({ mode: "serial", timeout: 240_000 });

// A refused proof is next-auth's 401 for its credentials callback (the page says why in words).
// And a signed-out page's last poll of /live, when signing out ends the session under it.
test.beforeEach(() => {
  expectConsoleError(/status of 401 .*\/api\/auth\/callback\/mfa/);
  expectConsoleError(/status of 401 .*\/live\]/);
});

const stamp = Date.now();
const SUPPORT = `mfa-support-${stamp}@keyhook.test`;
const DISTRICT = `mfa-passkey-${stamp}@district-4417.test`;
let totpSecret = "";
let recoveryCodes: string[] = [];

async function createUser(page: Page, email: string, role: "support" | "district_admin") {
  await page.goto("/users");
  const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Create user" }) });
  await form.getByLabel("Email").fill(email);
  await form.locator('select[name="role"]').selectOption(role);
  if (role === "district_admin") await form.locator('select[name="tenantId"]').selectOption("district-4417");
  await form.getByLabel(/Initial password/).fill(DEMO_PASSWORD);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${email}.`);
}

async function passwordStep(page: Page, email: string) {
  await page.goto("/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
}

test("a new support engineer must enrol an authenticator app first, then signs in with its codes", async ({
  page,
  browser,
  baseURL,
}) => {
  await signIn(page, USERS.platformAdmin);
  await createUser(page, SUPPORT, "support");
  await createUser(page, DISTRICT, "district_admin");

  const context = await browser.newContext({ baseURL });
  const user = await context.newPage();
  await passwordStep(user, SUPPORT);
  // Nothing else first: any page sends them back to enrolment.
  await expect(user.getByRole("heading", { name: "Set up a second factor" })).toBeVisible();
  await user.goto("/overview");
  await expect(user).toHaveURL(/\/signin\/enrol/);
  await screenshotBothWidths(user, "mfa-enrol");
  await user.getByRole("button", { name: "Set up an authenticator app" }).click();
  totpSecret = (await user.getByTestId("totp-secret").textContent())!.trim();
  expect(totpSecret).toMatch(/^[A-Z2-7]{32}$/);
  await expect(user.getByRole("img", { name: "QR code of the authenticator key" })).toBeVisible();
  await screenshotBothWidths(user, "mfa-enrol-totp");
  // A wrong first code does not add the factor.
  await user.getByLabel("Code from the app").fill("000000");
  await user.getByRole("button", { name: "Confirm and add" }).click();
  await expect(user.getByRole("alert").filter({ hasText: "did not match" })).toBeVisible();
  const enrolCode = await nextDemoCode(SUPPORT, totpSecret);
  await user.getByLabel("Code from the app").fill(enrolCode);
  await user.getByRole("button", { name: "Confirm and add" }).click();
  const codes = user.getByTestId("recovery-codes").getByRole("listitem");
  await expect(codes).toHaveCount(10);
  recoveryCodes = (await codes.allTextContents()).map((c) => c.trim());
  await screenshotBothWidths(user, "mfa-recovery-codes");
  await user.getByRole("button", { name: "I have saved them: continue" }).click();
  await expect(user.getByRole("heading", { name: "Overview", exact: true })).toBeVisible();
  await signOut(user);

  // Next time: the password, then a code from the app.
  await passwordStep(user, SUPPORT);
  await expect(user.getByRole("heading", { name: "Second factor" })).toBeVisible();
  await screenshotBothWidths(user, "mfa-second-step");
  // The code that confirmed the app is refused now (its time step is spent: no replay) ...
  await user.getByLabel("Code from your authenticator app").fill(enrolCode);
  await user.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(
    user
      .getByRole("alert")
      .filter({ hasText: "That did not work. Check the code (or use another way) and try again." }),
  ).toBeVisible();
  await user.getByLabel("Code from your authenticator app").fill(await nextDemoCode(SUPPORT, totpSecret));
  await user.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(user).toHaveURL(/\/overview$/);
  await context.close();
});

test("a recovery code works once, says how many are left, and is refused the second time", async ({ page }) => {
  expect(recoveryCodes).toHaveLength(10);
  await passwordStep(page, SUPPORT);
  await page.getByRole("button", { name: "Lost your device? Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
  await page.getByRole("button", { name: "Use recovery code" }).click();
  await expect(page.getByTestId("recovery-used")).toContainText("9 of 10 left");
  await screenshotBothWidths(page, "mfa-account-after-recovery");
  await signOut(page);

  await passwordStep(page, SUPPORT);
  await page.getByRole("button", { name: "Lost your device? Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
  await page.getByRole("button", { name: "Use recovery code" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "That did not work" })).toBeVisible();
  await page.getByLabel("Recovery code").fill(recoveryCodes[1]!);
  await page.getByRole("button", { name: "Use recovery code" }).click();
  await expect(page.getByTestId("recovery-used")).toContainText("8 of 10 left");
  // Every use is in the audit log, with the count left (seen by a platform admin).
});

async function virtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

test("a district admin adds a passkey (Chromium's virtual authenticator) and signs in with it", async ({
  page,
  context,
}) => {
  await virtualAuthenticator(context, page);
  // Not required of their role: they sign in without a factor and add one themselves.
  await signIn(page, DISTRICT);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account security" }).click();
  await expect(page.getByRole("heading", { name: "Account security" })).toBeVisible();
  await screenshotBothWidths(page, "mfa-account");
  await page.getByRole("button", { name: "Add a passkey or security key" }).click();
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  await page.getByRole("button", { name: "I have saved them: continue" }).click();
  await expect(page.locator('[data-factor-kind="passkey"]')).toHaveCount(1);
  await screenshotBothWidths(page, "mfa-account-passkey");
  await signOut(page);

  // Now sign-in asks for it, whatever the policy says of district admins.
  await passwordStep(page, DISTRICT);
  await expect(page.getByRole("heading", { name: "Second factor" })).toBeVisible();
  await expect(page.getByLabel("Code from your authenticator app")).toHaveCount(0);
  await page.getByRole("button", { name: "Use a passkey or security key" }).click();
  await expect(page).toHaveURL(/\/overview$/);
});

/** The session cookie, sealed again with its factor proven `minutes` ago (the e2e server runs on the dev secret). */
async function ageFactor(context: BrowserContext, minutes: number) {
  const cookie = (await context.cookies()).find((c) => c.name.endsWith("keyhook.session"))!;
  const token = (await decode({ token: cookie.value, secret: DEV_AUTH_SECRET }))!;
  const value = await encode({
    token: { ...token, fa: Date.now() - minutes * 60_000 },
    secret: DEV_AUTH_SECRET,
    maxAge: 8 * 60 * 60,
  });
  await context.addCookies([{ ...cookie, value }]);
}

test("a revoke asks for a second factor again once the last one is older than 15 minutes, and then completes", async ({
  page,
  context,
  baseURL,
}) => {
  const provider = await apiAs(baseURL!, null);
  const tenantId = `district-75${String(stamp).slice(-2)}`;
  expect(
    (await deliverSigned(provider, { type: "key.created", tenantId, keyId: `key_step_${stamp}`, sequence: 1 })).body
      .outcome,
  ).toBe("applied");
  await signIn(page, USERS.platformAdmin);
  // The clock, as the server judges the session: its factor was proven 16 minutes ago.
  await ageFactor(context, 16);
  await page.goto(`/districts/${tenantId}`);
  const row = page.locator(`tr[data-key-id="key_step_${stamp}"]`);
  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
  await expect(dialog).toBeVisible();
  await expect(row.getByText("active", { exact: true })).toBeVisible();
  await screenshotBothWidths(page, "mfa-step-up");
  await dialog.getByLabel("Code from your authenticator app").fill(await nextDemoCode(USERS.platformAdmin));
  await dialog.getByRole("button", { name: "Confirm", exact: true }).click();
  // The form's request goes again, and this time runs.
  await expect(
    row.getByRole("status").filter({ hasText: `Revoked key_step_${stamp} here and sent the revoke to the provider.` }),
  ).toBeVisible();
  // Within the window, no question: 14 minutes is fresh enough.
  expect(
    (await deliverSigned(provider, { type: "key.created", tenantId, keyId: `key_step2_${stamp}`, sequence: 2 })).body
      .outcome,
  ).toBe("applied");
  await ageFactor(context, 14);
  await page.goto(`/districts/${tenantId}`);
  const second = page.locator(`tr[data-key-id="key_step2_${stamp}"]`);
  await second.getByRole("button", { name: "Revoke" }).click();
  await second.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(
    second
      .getByRole("status")
      .filter({ hasText: `Revoked key_step2_${stamp} here and sent the revoke to the provider.` }),
  ).toBeVisible();
  await expect(page.getByRole("dialog", { name: "Confirm it's you" })).toHaveCount(0);
});

test("a platform admin resets a user's factors: their session ends and they enrol again", async ({
  page,
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({ baseURL });
  const user = await context.newPage();
  await passwordStep(user, SUPPORT);
  await user.getByLabel("Code from your authenticator app").fill(await nextDemoCode(SUPPORT, totpSecret));
  await user.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(user).toHaveURL(/\/overview$/);

  await signIn(page, USERS.platformAdmin);
  await page.goto("/users");
  const row = page.locator(`tr[data-user-email="${SUPPORT}"]`);
  await expect(row.getByTestId("second-factors")).toHaveText("1 second factor");
  await row.getByRole("button", { name: "Reset second factor" }).click();
  await screenshotBothWidths(page, "mfa-users-reset-confirm");
  await row.getByRole("button", { name: "Yes, reset" }).click();
  // The row's reset form goes with the factors: its answer is reported page-wide.
  await expect(page.getByTestId("action-result").filter({ hasText: "second factors are reset" })).toBeVisible();
  await expect(row.getByTestId("second-factors")).toHaveText("no second factor");

  await user.goto("/overview");
  await expect(user).toHaveURL(/\/signin/);
  await passwordStep(user, SUPPORT);
  await expect(user.getByRole("heading", { name: "Set up a second factor" })).toBeVisible();
  await context.close();

  await page.goto("/audit?action=mfa.reset");
  await expect(page.getByRole("table", { name: "Audit log" })).toContainText(SUPPORT);
});
