// Retry readiness in the browser: the Readiness page runs the check and shows each step's fix; sequence
// gaps on the district page and overview; per-secret usage on Settings; the canary stays hidden.
// No provider runs here, so the check falls back to locally signed events and says the delivery
// history cannot be reconciled, and no purge has run yet: "not ready", with what to fix.
import { type Page } from "@playwright/test";
import { startSimulator, type SimulatorProcess } from "../test/support/simulator";
import { expect, expectConsoleError, test, apiAs, deliverSigned, screenshot, signIn, USERS } from "./support";

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
  await expect(page.getByRole("main").getByText(/Not ready for retries: 2 of 6 steps failed/)).toBeVisible({
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
  // One embedded server, no standby: said plainly, as a warning (decision 0021).
  await expect(page.getByTestId("readiness-step-failover_durability")).toContainText("warning");
  await expect(page.getByTestId("readiness-step-failover_durability")).toContainText("a single server");
  // No WAL archiving on the embedded server: said plainly, as a warning too.
  await expect(page.getByTestId("readiness-step-backups")).toContainText("warning");
  await expect(page.getByTestId("readiness-step-backups")).toContainText("WAL archiving is off");
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
  expectConsoleError(/status of 404 \(Not Found\) \[.*\/districts\/keyhook-readiness-canary\]/);
  const notFound = await page.goto("/districts/keyhook-readiness-canary");
  expect(notFound?.status()).toBe(404);
});

test("a district admin has no readiness page", async ({ page }) => {
  await signIn(page, USERS.districtAdmin);
  await expect(page.getByTestId("readiness-line")).toHaveCount(0);
  expectConsoleError(/status of 404 \(Not Found\) \[.*\/readiness\]/);
  const response = await page.goto("/readiness");
  expect(response?.status()).toBe(404);
});

/** The provider simulator on the port the app calls, keeping nothing: a restart is a provider whose state was reset. */
function startProvider(): Promise<SimulatorProcess> {
  return startSimulator({
    env: { PROVIDER_SIM_PORT: String(Number(process.env.E2E_PROVIDER_PORT ?? 4539)), PROVIDER_SIM_DATA_DIR: "memory" },
  });
}

// Last in this file: it leaves a registered hook behind, which the runs above must not see.
test("Settings says when the provider lost our webhook, and Register puts it back", async ({ page }) => {
  let provider = await startProvider();
  try {
    await signIn(page, USERS.platformAdmin);
    await page.goto("/settings");
    await page.getByRole("button", { name: "Register webhook now" }).click();
    await expect(
      page.getByRole("main").getByText(/^Registered http:\/\/\S+ with the provider as hook hook_\w+\.$/),
    ).toBeVisible();
    const first = /hook_\w+/.exec(
      (await page
        .getByRole("main")
        .getByText(/^Registered http/)
        .textContent())!,
    )![0];

    // The provider's state is reset: same address, no hooks.
    await provider.kill();
    provider = await startProvider();
    await page.reload();
    await expect(page.getByText("Our webhook is not registered at the provider:")).toBeVisible();
    await expect(page.getByText("reachable · hook unknown")).toBeVisible();
    await shoot(page, "settings-hook-lost");

    await page.getByRole("button", { name: "Register webhook now" }).click();
    await expect(
      page
        .getByRole("main")
        .getByText(
          new RegExp(`^The provider no longer knew hook ${first}: registered \\S+ again as hook hook_\\w+\\.$`),
        ),
    ).toBeVisible();
    await page.reload();
    await expect(page.getByText("Our webhook is not registered at the provider:")).toHaveCount(0);
    await page.getByRole("button", { name: "Register webhook now" }).click();
    await expect(
      page.getByRole("main").getByText(/^The provider confirms \S+ is registered as hook hook_\w+; nothing changed\.$/),
    ).toBeVisible();
    await shoot(page, "settings-hook-registered");
  } finally {
    await provider.dispose();
  }
});
