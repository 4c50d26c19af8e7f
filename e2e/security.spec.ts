// The browser enforces the production Content-Security-Policy (proxy.ts): no page can be framed
// by another site, an injected script does not run, and a violation fails the test that caused
// it (the guard every spec's `test` carries, e2e/support.ts).
import { expect, expectConsoleError, test, screenshot, signIn, USERS } from "./support";

const attacker = "http://attacker.invalid";

test("no page can be shown in a cross-origin iframe", async ({ page, baseURL }) => {
  expectConsoleError(/Refused to frame .* because an ancestor violates .*frame-ancestors 'none'/);
  await signIn(page, USERS.districtAdmin);
  await page.route(`${attacker}/**`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<h1>Win a prize</h1>
        <iframe id="dashboard" src="${baseURL}/districts/district-4417" width="800" height="600"></iframe>
        <iframe id="signin" src="${baseURL}/signin" width="800" height="600"></iframe>`,
    }),
  );
  // What our server answered inside the frames (the dashboard page redirects to sign-in there:
  // the SameSite=Lax session cookie is not sent to a cross-site frame).
  const answers: Record<string, string>[] = [];
  page.on("response", (response) => {
    if (response.url().startsWith(baseURL!) && response.request().frame() !== page.mainFrame())
      answers.push(response.headers());
  });
  await page.goto(`${attacker}/`);
  await expect.poll(() => answers.length).toBeGreaterThanOrEqual(2);
  for (const headers of answers) {
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["x-frame-options"]).toBe("DENY");
  }
  // Chromium replaces a refused frame with its error page: none of ours renders inside.
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
