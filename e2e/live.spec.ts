// Open pages update themselves (components/live-refresh.tsx polls a change token): the specs play
// the provider by posting signed webhooks and never reload the page. A marker on `window` proves
// it: a reload or a full navigation would drop it.
import { type Page } from "@playwright/test";
import { expect, test, apiAs, deliverSigned, screenshot, signIn, USERS } from "./support";

async function markPage(page: Page) {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
}

async function expectSameDocument(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
}

/** Another district's key announced for district-0935: answered quarantined. */
async function deliverMisrouted(provider: Awaited<ReturnType<typeof apiAs>>, id: string, sequence: number) {
  const answer = await deliverSigned(provider, {
    id,
    type: "key.created",
    tenantId: "district-0935",
    keyId: "key_rc_02",
    sequence,
  });
  expect(answer.body.outcome).toBe("quarantined");
}

test("a district page shows a new event and a revoke's confirmation without a reload", async ({ page, baseURL }) => {
  const stamp = Date.now();
  const keyId = `key_live_${stamp}`;
  const createdId = `evt_live_created_${stamp}`;
  const provider = await apiAs(baseURL!, null);

  await signIn(page, USERS.districtAdmin);
  await page.goto("/districts/district-4417");
  await expect(page.getByRole("heading", { name: "Maple Valley Unified", exact: true })).toBeVisible();
  const indicator = page.getByTestId("live-indicator");
  await expect(indicator).toHaveAttribute("data-state", "live");
  const before = await indicator.locator("time").getAttribute("datetime");
  await markPage(page);

  // The provider announces a new key for this district.
  const created = await deliverSigned(provider, {
    id: createdId,
    type: "key.created",
    tenantId: "district-4417",
    keyId,
    sequence: 1_000 + (stamp % 100_000),
  });
  expect(created.body.outcome).toBe("applied");
  await expect(page.locator(`li[data-event-id="${createdId}"]`)).toBeVisible();
  const row = page.locator(`tr[data-key-id="${keyId}"]`);
  await expect(row.getByText("active")).toBeVisible();
  await expect(indicator.locator("time")).not.toHaveAttribute("datetime", before!);
  await expectSameDocument(page);

  // Revoke it: the answer shows on its row, which the re-render keeps.
  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(
    row.getByRole("status").filter({ hasText: `Revoked ${keyId} here and sent the revoke to the provider.` }),
  ).toBeVisible();
  await expect(row.getByTestId("revoke-state")).toContainText("awaiting the provider's confirmation");
  await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
  await screenshot(page, "live-revoke-awaiting");
  await markPage(page);

  // The provider's webhook confirms it; the open page shows "confirmed" by itself.
  const confirmed = await deliverSigned(provider, {
    id: `evt_live_revoked_${stamp}`,
    type: "key.revoked",
    tenantId: "district-4417",
    keyId,
    sequence: 1_001 + (stamp % 100_000),
  });
  expect(confirmed.body.outcome).toBe("applied");
  await expect(page.locator(`li[data-event-id="evt_live_revoked_${stamp}"]`)).toContainText(
    "the provider confirmed the revoke",
  );
  // Confirmed on the row that was clicked: a just-revoked key stays with the current keys.
  await expect(row.getByTestId("revoke-state")).toContainText("confirmed by the provider at");
  await expectSameDocument(page);
  await screenshot(page, "live-revoke-confirmed");
  await provider.dispose();
});

test("support's open quarantine and deliveries pages show new items without a reload", async ({ page, baseURL }) => {
  const stamp = Date.now();
  const provider = await apiAs(baseURL!, null);
  await signIn(page, USERS.support);

  await page.goto("/quarantine");
  await expect(page.getByRole("heading", { name: "Quarantine", exact: true })).toBeVisible();
  await markPage(page);
  const misrouted = `evt_live_misrouted_${stamp}`;
  await deliverMisrouted(provider, misrouted, 5_000 + (stamp % 100_000));
  await expect(page.getByRole("link", { name: misrouted })).toBeVisible();
  await expectSameDocument(page);

  await page.goto("/deliveries");
  await expect(page.getByRole("heading", { name: "Deliveries", exact: true })).toBeVisible();
  await markPage(page);
  const fresh = `evt_live_delivery_${stamp}`;
  await deliverSigned(provider, {
    id: fresh,
    type: "key.created",
    tenantId: "district-0935",
    keyId: `key_live_d_${stamp}`,
    sequence: 6_000 + (stamp % 100_000),
  });
  await expect(page.locator(`[data-event-id="${fresh}"]`)).toBeVisible();
  await expectSameDocument(page);
  await provider.dispose();
});

test("a change committed after the page rendered but before its first poll answers still shows", async ({
  page,
  baseURL,
}) => {
  const stamp = Date.now();
  const provider = await apiAs(baseURL!, null);
  await signIn(page, USERS.support);
  // Hold the page's first poll until the change has committed: the race a user meets when a
  // delivery lands while the page is loading.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let firstPollHeld = false;
  await page.route("**/live", async (route) => {
    if (!firstPollHeld) {
      firstPollHeld = true;
      await released;
    }
    await route.continue();
  });

  await page.goto("/quarantine");
  await expect(page.getByRole("heading", { name: "Quarantine", exact: true })).toBeVisible();
  await expect.poll(() => firstPollHeld).toBe(true);
  await markPage(page);
  const misrouted = `evt_live_early_${stamp}`;
  await deliverMisrouted(provider, misrouted, 7_000 + (stamp % 100_000));
  release();
  await expect(page.getByRole("link", { name: misrouted })).toBeVisible();
  await expectSameDocument(page);
  await provider.dispose();
});
