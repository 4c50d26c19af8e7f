// A cross-site form post to a state-changing server action is refused: the session cookie is
// SameSite=Lax (not sent on a cross-site POST), and a POST to a page from another Origin is
// answered 403 before Next sees it (server/request-guard.ts), even when the cookie is present.
import { expect, expectConsoleError, test, screenshot, signIn, USERS } from "./support";

test("a cross-site post to the revoke action is refused and the key stays active", async ({ page, baseURL }) => {
  expectConsoleError(/status of 403 \(Forbidden\) \[.*\/districts\/district-0935\]/);
  await signIn(page, USERS.platformAdmin);
  await page.goto("/districts/district-0935");
  const row = page.locator('tr[data-key-id="key_ch_01"]');
  await expect(row.getByText("active")).toBeVisible();

  // What the real revoke form posts: its hidden fields, including React's action reference.
  const form = row.locator("form").first();
  const fields = await form
    .locator('input[type="hidden"]')
    .evaluateAll((inputs) =>
      inputs.map((input) => [(input as HTMLInputElement).name, (input as HTMLInputElement).value] as [string, string]),
    );
  const html = await page.content();
  const actionId =
    /"id":"([0-9a-f]{20,})"/.exec(fields.map(([, v]) => v).join(" "))?.[1] ??
    /\$ACTION_ID_([0-9a-f]{20,})/.exec(html)?.[1] ??
    /\\?"id\\?":\\?"([0-9a-f]{40,})/.exec(html)?.[1];
  expect(actionId, "the revoke form's server action id").toBeTruthy();

  // 1. A browser on another site auto-submits the same form to our page.
  const attacker = "http://attacker.invalid";
  await page.route(`${attacker}/**`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<form id="f" method="POST" enctype="multipart/form-data" action="${baseURL}/districts/district-0935">
        ${fields.map(([name, value]) => `<input type="hidden" name="${name}" value='${value.replace(/'/g, "&#39;")}'>`).join("")}
        <input type="hidden" name="$ACTION_ID_${actionId}" value="">
      </form><script>document.getElementById("f").submit()</script>`,
    }),
  );
  const crossSiteResponse = page.waitForResponse(
    (r) => r.url().startsWith(`${baseURL}/districts/district-0935`) && r.request().method() === "POST",
  );
  await page.goto(`${attacker}/`);
  const refused = await crossSiteResponse;
  expect((await refused.request().allHeaders())["cookie"] ?? "").not.toContain("keyhook.session");

  // 2. Even with the session cookie attached, a foreign Origin is refused by the action itself.
  const cookie = (await page.context().cookies(baseURL)).map((c) => `${c.name}=${c.value}`).join("; ");
  const withCookie = await page.request.post(`${baseURL}/districts/district-0935`, {
    headers: { "next-action": actionId!, origin: attacker, cookie, accept: "text/x-component" },
    multipart: Object.fromEntries(fields.filter(([name]) => !name.startsWith("$ACTION"))),
  });
  expect(withCookie.status()).toBeGreaterThanOrEqual(400);

  // Nothing changed, and no revoke was recorded.
  await page.goto("/districts/district-0935");
  await expect(page.locator('tr[data-key-id="key_ch_01"]').getByText("active")).toBeVisible();
  await expect(page.locator('tr[data-key-id="key_ch_01"]').getByTestId("revoke-state")).toHaveCount(0);
  await page.goto("/audit?action=key.revoke");
  await expect(page.locator(".animate-pulse")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Audit log", exact: true })).toBeVisible();
  await expect(page.getByText("key_ch_01")).toHaveCount(0);
  await screenshot(page, "cross-site-refused-audit");
});
