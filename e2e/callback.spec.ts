// Sign-in returns to the page that asked for it, and never to another site.
import { type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "../lib/operations/demo/demo-data";
import { expect, proveDemoFactor, test, USERS } from "./support";

async function submitSignIn(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Staff prove the demo key next; the callback travels through that step.
  if (email !== USERS.districtAdmin) {
    await expect(page).toHaveURL(/\/signin\/factor\?callbackUrl=/);
    await proveDemoFactor(page, email);
  }
}

test("sign-in returns to the page that sent you there", async ({ page }) => {
  await page.goto("/ledger?tenant=district-4417&outcome=applied");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
  await submitSignIn(page, USERS.districtAdmin);
  await expect(page).toHaveURL(/\/ledger\?tenant=district-4417&outcome=applied$/);
  await expect(page.getByRole("heading", { name: "Ledger", exact: true })).toBeVisible();
});

// Staff and a district admin in turn: the callback through the factor step and without it (and
// each staff account spends one code of the demo key per step, so none waits for the clock).
for (const [offSite, email] of [
  ["https://attacker.invalid/steal", USERS.support],
  ["//attacker.invalid/steal", USERS.platformAdmin],
  ["/\\attacker.invalid/steal", USERS.districtAdmin],
  ["javascript:alert(1)", USERS.support],
] as const) {
  test(`an off-site callbackUrl is ignored: ${offSite}`, async ({ page, baseURL }) => {
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(`/signin?callbackUrl=${encodeURIComponent(offSite)}`);
    await submitSignIn(page, email);
    await expect(page).toHaveURL(`${baseURL}/overview`);
    await expect(page.getByRole("heading", { name: "Overview", exact: true })).toBeVisible();
    expect(requests.filter((url) => new URL(url).hostname.includes("attacker"))).toEqual([]);
  });
}

test("an already signed-in visit to sign-in follows a same-site callbackUrl only", async ({ page, baseURL }) => {
  await page.goto("/signin");
  await submitSignIn(page, USERS.platformAdmin);
  await expect(page).toHaveURL(/\/overview$/);
  await page.goto("/signin?callbackUrl=%2Fdeliveries");
  await expect(page).toHaveURL(`${baseURL}/deliveries`);
  await page.goto("/signin?callbackUrl=https%3A%2F%2Fattacker.invalid%2F");
  await expect(page).toHaveURL(`${baseURL}/overview`);
});
