// Settings → Alert channels in the production build: a platform admin adds channels, a bad
// address is a form error in the page, a JSON webhook's secret is shown once, addresses are masked.
import { expect, test, screenshot, signIn, USERS } from "./support";

test("a platform admin manages alert channels on Settings", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, USERS.platformAdmin);
  await page.goto("/settings");
  const card = page.locator("section", { has: page.getByRole("heading", { name: "Alert channels" }) });
  await expect(card).toBeVisible();
  const addForm = card.locator("form", { has: page.getByRole("button", { name: "Add channel" }) });

  // React resets a form after its action: every submit fills it again.
  const submit = async (kind: string, name: string, target: string) => {
    await addForm.getByLabel("Kind").selectOption(kind);
    await addForm.getByLabel("Name").fill(name);
    await addForm.getByLabel("Webhook URL, or the email recipients (comma separated)").fill(target);
    await addForm.getByRole("button", { name: "Add channel" }).click();
  };

  // A bad URL: the form says why, nothing is added.
  await submit("slack", "On-call chat", "hooks.example.org/x");
  await expect(addForm.getByRole("status")).toHaveText("The incoming webhook URL must be an http(s):// URL");
  await expect(card.getByRole("table", { name: "Alert channels" })).toHaveCount(0);

  await submit("slack", "On-call chat", "https://hooks.slack.example/services/T0001/B0001/e2eSECRETtoken42");
  await expect(addForm.getByRole("status")).toHaveText('Added the Slack channel "On-call chat".');

  await submit("webhook", "Incident pager", "https://pager.example.org/keyhook");
  await expect(addForm.getByRole("status")).toContainText("Its signing secret, shown only now");
  const secret = /(whsec_\S+)/.exec((await addForm.getByRole("status").textContent()) ?? "")?.[1];
  expect(secret).toBeTruthy();
  await screenshot(page, "settings-alert-channels-secret-once-1280");

  const table = card.getByRole("table", { name: "Alert channels" });
  await expect(table.getByText("On-call chat")).toBeVisible();
  await expect(table.getByText("https://hooks.slack.example/…en42")).toBeVisible();
  await expect(table.getByText(/whsec_… \(fingerprint [0-9a-f]{8}\)/)).toBeVisible();
  await page.reload();
  const html = await page.content();
  expect(html).not.toContain("e2eSECRETtoken42");
  expect(html).not.toContain(secret!);
  await screenshot(page, "settings-alert-channels-1280");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("heading", { name: "Alert channels" })).toBeVisible();
  // No sideways scrolling on a phone: the channel rows stack.
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await screenshot(page, "settings-alert-channels-390");
  await card.screenshot({ path: "e2e/artifacts/settings-alert-channels-card-390.png" });
});
