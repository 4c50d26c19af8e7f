// The browser enforces the production Content-Security-Policy (proxy.ts): no page can be framed
// by another site, an injected script does not run, and a violation fails the test that caused
// it (the guard every spec's `test` carries, e2e/support.ts).
import { expect, expectConsoleError, test, screenshot, signIn, USERS } from "./support";

test("no page can be shown in a cross-origin iframe", async ({ page, baseURL }) => {
  expectConsoleError(/Refused to frame .* because an ancestor violates .*frame-ancestors 'none'/);
  await signIn(page, USERS.districtAdmin);
  // Another origin on loopback (localhost vs 127.0.0.1: another site), so Chromium's
  // private-network rules do not stop the frames first; a page of its own frames fine there.
  const attacker = baseURL!.replace("localhost", "127.0.0.1");
  await page.route(`${attacker}/prize**`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: route.request().url().endsWith("/prize-frame")
        ? "<p id=own>the attacker's own frame</p>"
        : `<h1>Win a prize</h1>
        <iframe id="own" src="${attacker}/prize-frame" width="300" height="100"></iframe>
        <iframe id="dashboard" src="${baseURL}/districts/district-4417" width="800" height="400"></iframe>
        <iframe id="signin" src="${baseURL}/signin" width="800" height="400"></iframe>`,
    }),
  );
  await page.goto(`${attacker}/prize`);
  await expect(page.frameLocator("iframe#own").locator("#own")).toHaveText("the attacker's own frame");
  // Chromium replaces a refused frame with its error page: none of ours renders inside (the
  // dashboard page redirects to sign-in there: the session cookie is not sent to another site).
  for (const id of ["dashboard", "signin"]) {
    const frame = await (await page.locator(`iframe#${id}`).elementHandle())!.contentFrame();
    await expect.poll(() => frame?.url()).toMatch(/^chrome-error:/);
    await expect(page.frameLocator(`iframe#${id}`).getByRole("button")).toHaveCount(0);
  }
  await screenshot(page, "framing-refused");
});

test("an injected inline script is blocked by the policy, and the violation fails the test", async ({ page }) => {
  test.fail(true, "the guard in e2e/support.ts must fail a test on a policy violation");
  await page.goto("/signin");
  const policy = (await page.request.get("/signin")).headers()["content-security-policy"];
  expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.__injected = true";
    document.body.append(script);
  });
  expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined();
});
