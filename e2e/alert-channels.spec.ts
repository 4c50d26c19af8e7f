// Settings → Alert channels in the production build: a platform admin adds channels, a bad
// address is a form error in the page, a JSON webhook's secret is shown once, addresses are masked.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import {
  apiAs,
  deliverSigned,
  expect,
  test,
  E2E_DATABASE_URL,
  screenshot,
  screenshotBothWidths,
  signIn,
  sweepAlerts,
  USERS,
} from "./support";

/** A loopback port chosen by the system, and whether to keep listening on it. */
async function loopback(server: Server, keep: boolean): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  if (!keep) await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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

test("Send a test answers next to its button; a duplicate is refused; a dead channel's given-up messages are one alert that names it, and support's decision on it holds through the sweeps", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // A receiver on loopback the app can reach, and a port where nothing listens.
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => received.push(chunk.toString()));
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  const port = await loopback(receiver, true);
  const gone = await loopback(createServer(), false);
  try {
    await signIn(page, USERS.platformAdmin);
    await page.goto("/settings");
    const card = page.locator("section", { has: page.getByRole("heading", { name: "Alert channels" }) });
    const addForm = card.locator("form", { has: page.getByRole("button", { name: "Add channel" }) });
    const add = async (kind: string, name: string, target: string) => {
      await addForm.getByLabel("Kind").selectOption(kind);
      await addForm.getByLabel("Name").fill(name);
      await addForm.getByLabel("Webhook URL, or the email recipients (comma separated)").fill(target);
      await addForm.getByRole("button", { name: "Add channel" }).click();
    };
    const url = `http://127.0.0.1:${port}/hook`;
    await add("webhook", "Ops receiver", url);
    await expect(addForm.getByRole("status")).toContainText('Added the JSON webhook channel "Ops receiver"');
    // The same address again: refused next to the field, what was typed kept.
    await add("webhook", "Ops receiver (copy)", url);
    await expect(addForm.getByText('The channel "Ops receiver" already sends to this address')).toBeVisible();
    await expect(addForm.getByLabel("Name")).toHaveValue("Ops receiver (copy)");

    const row = card.getByRole("row").filter({ hasText: "Ops receiver" });
    await row.getByRole("button", { name: "Send a test" }).click();
    await expect(row.getByRole("status")).toHaveText(
      /^Test message delivered to "Ops receiver": the receiver answered 200 in \d+ ms\.$/,
    );
    expect(received.join("")).toContain('"type":"channel.test"');
    await screenshotBothWidths(page, "settings-channel-test-delivered");

    // A channel nobody answers for: its test says why, where it was pressed.
    await add("slack", "Old chat", `http://127.0.0.1:${gone}/gone`);
    const dead = card.getByRole("row").filter({ hasText: "Old chat" });
    await dead.getByRole("button", { name: "Send a test" }).click();
    await expect(dead.getByRole("status")).toContainText(
      'The test did not reach "Old chat": could not reach the receiver',
    );
    await screenshotBothWidths(page, "settings-channel-test-failed");

    // Its messages were given up (as the outbox leaves them after its attempts): the sweep makes
    // them ONE alert that names the channel.
    const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM alert_channels WHERE name = 'Old chat'`);
    const channelId = rows[0]!.id;
    for (let i = 0; i < 3; i++)
      await client.query(
        `INSERT INTO outbox (kind, payload, idempotency_key, status, attempts, last_error, failed_at)
         VALUES ('notify.slack', $1::jsonb, $2, 'failed', 12, 'could not reach the receiver: ECONNREFUSED', now())`,
        [JSON.stringify({ channelId, title: `[Keyhook] New alert — ${i}` }), `e2e-given-up-${i}`],
      );
    await client.end();
    sweepAlerts();

    const support = await browser.newPage({ baseURL });
    await signIn(support, USERS.support);
    await support.goto("/alerts");
    const alert = support
      .getByTestId("alert-row")
      .filter({ hasText: '3 alert message(s) to "Old chat" were given up' });
    await expect(alert).toHaveCount(1);
    await alert.getByRole("link").first().click();
    await support.getByLabel("How").selectOption("explained");
    await support.getByLabel(/Note/).fill("chat retired; the channel is removed on Friday");
    await support.getByRole("button", { name: "Resolve" }).click();
    await expect(support.getByText(/^Resolved outbox\/channel\//).first()).toBeVisible();
    // The sweeps run again: the decision holds while its messages are there.
    sweepAlerts();
    sweepAlerts();
    await support.reload();
    await expect(support.getByRole("main")).toContainText("Marked as explained");
    // Its messages are settled by the decision: the condition is gone, nothing re-opens.
    await expect(support.getByRole("main")).toContainText(/Condition\s*gone since/);
    await screenshotBothWidths(support, "alert-detail-outbox-channel-explained");

    // A superseded key support explains stays explained while it stays superseded, sweep after sweep.
    const api = await apiAs(baseURL!, null);
    for (const [keyId, sequence] of [
      ["key_e2e_decided_a", 1],
      ["key_e2e_decided_b", 2],
    ] as const)
      await deliverSigned(api, { type: "key.created", tenantId: "district-e2e-decided", keyId, sequence });
    sweepAlerts();
    await support.goto("/alerts");
    const superseded = support.getByTestId("alert-row").filter({ hasText: "key_e2e_decided_a was superseded" });
    await superseded.getByRole("link").first().click();
    await support.getByLabel("How").selectOption("explained");
    await support.getByLabel(/Note/).fill("the district's test key; they revoke it at the provider on Monday");
    await support.getByRole("button", { name: "Resolve" }).click();
    await expect(support.getByText(/^Resolved api_keys\/key_e2e_decided_a/).first()).toBeVisible();
    sweepAlerts();
    sweepAlerts();
    await support.reload();
    await expect(support.getByRole("main")).toContainText("Marked as explained");
    await expect(support.getByRole("main")).toContainText("still holds: this decision stands until it changes");
    await screenshotBothWidths(support, "alert-detail-decision-holds");
    await support.close();
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
