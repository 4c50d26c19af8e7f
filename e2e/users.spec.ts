// A platform admin manages accounts from the Users page: a new district admin signs in and sees
// only their district; once disabled, their very next request is refused.
import { type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import { expect, test, screenshot, screenshotBothWidths, signIn, USERS } from "./support";

const NEW_ADMIN = `new-admin-${Date.now()}@district-4417.test`;

async function openUsers(page: Page) {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { name: "Users", exact: true })).toBeVisible();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/signin/);
}

test("a platform admin creates a district admin, who sees only their district until disabled", async ({
  page,
  browser,
  baseURL,
}) => {
  await signIn(page, USERS.platformAdmin);
  await openUsers(page);
  const createForm = page.locator("form").filter({ has: page.getByRole("button", { name: "Create user" }) });
  const fillNewAdmin = async () => {
    await createForm.getByLabel("Email").fill(NEW_ADMIN);
    await createForm.getByLabel("Name").fill("New Maple Admin");
    // By name: a select's label text includes its options ("District admin" is a role).
    await createForm.locator('select[name="role"]').selectOption("district_admin");
    await createForm.locator('select[name="tenantId"]').selectOption("district-4417");
    // The demo password is long enough, and lets the shared signIn helper sign them in.
    await createForm.getByLabel(/Initial password/).fill(DEMO_PASSWORD);
    await createForm.getByRole("button", { name: "Create user" }).click();
  };
  await fillNewAdmin();
  await expect(createForm.getByRole("status")).toHaveText(`Created ${NEW_ADMIN}.`);
  const row = page.locator(`tr[data-user-email="${NEW_ADMIN}"]`);
  await expect(row).toContainText("district-4417");
  await expect(row).toContainText("active");
  // The same email again is a form error, not a crash.
  await fillNewAdmin();
  await expect(createForm.locator('[data-result="error"]')).toHaveText("A user with this email exists");
  await screenshot(page, "admin-users");
  await signOut(page);

  // The new user signs in in their own browser and sees only their district, and no Users page.
  const userContext = await browser.newContext({ baseURL });
  const userPage = await userContext.newPage();
  await signIn(userPage, NEW_ADMIN);
  const nav = userPage.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Users" })).toHaveCount(0);
  await nav.getByRole("link", { name: "Districts" }).click();
  await expect(userPage.getByRole("heading", { name: "Maple Valley Unified", exact: true })).toBeVisible();
  await expect(userPage.getByText("Riverside County Schools")).toHaveCount(0);

  // The admin signs back in and disables them.
  await signIn(page, USERS.platformAdmin);
  await openUsers(page);
  await row.getByRole("button", { name: "Disable" }).click();
  await row.getByRole("button", { name: "Yes, disable" }).click();
  await expect(row).toContainText("disabled");
  await expect(row.getByRole("button", { name: "Enable" })).toBeVisible();

  // Their session cookie is still there, but the next request is refused, and says why: they
  // held that session, so telling them their account was disabled tells nobody else anything.
  await userPage.goto("/districts/district-4417");
  await expect(userPage).toHaveURL(/\/signin/);
  await expect(userPage.getByTestId("session-ended")).toContainText("A platform admin disabled your account");
  await screenshotBothWidths(userPage, "signin-account-disabled");
  await userContext.close();
  // A stranger's browser (no session) sees no such sentence on the same page.
  const stranger = await browser.newPage();
  await stranger.goto(`${baseURL}/signin`);
  await expect(stranger.getByRole("heading", { name: "Sign in to Keyhook" })).toBeVisible();
  await expect(stranger.getByTestId("session-ended")).toHaveCount(0);
  await stranger.close();

  // The disable is in the audit log, naming whom it disabled.
  await page.goto("/audit?action=user.disable");
  await expect(page.getByRole("table", { name: "Audit log" })).toContainText(NEW_ADMIN);
});
