// Every page of every role at a laptop (1280×800) and a phone (390×844): the document never
// scrolls sideways, every button can be brought into the viewport without a scroll container
// clipping it, and axe finds no serious or critical accessibility violation. A full-page
// screenshot of each is saved in e2e/artifacts/layout/ to look at.
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type Page } from "@playwright/test";
import { expect, sidewaysOverflow, signIn, test, USERS } from "./support";

const VIEWPORTS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

const staffPages = [
  "/overview",
  "/alerts",
  "/districts",
  "/districts/district-4417",
  "/ledger",
  "LEDGER_EVENT",
  "/deliveries",
  "/quarantine",
  "/retention",
  "/audit",
];
const ROLES = [
  { role: "platform-admin", email: USERS.platformAdmin, pages: [...staffPages, "/users", "/settings"] },
  { role: "support", email: USERS.support, pages: staffPages },
  // /districts sends a district admin straight to their district.
  {
    role: "district-admin",
    email: USERS.districtAdmin,
    pages: ["/overview", "/alerts", "/districts", "/ledger", "LEDGER_EVENT"],
  },
] as const;

type Problem = string;

/** Buttons outside the viewport after scrolling them into view, or clipped by a scrolling ancestor. */
async function unreachableButtons(page: Page): Promise<Problem[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const buttons = [
      ...document.querySelectorAll<HTMLElement>(
        "main button, main a[class*='inline-flex'], header button, [role=status] button",
      ),
    ];
    for (const button of buttons) {
      if (!button.checkVisibility({ visibilityProperty: true })) continue; // inside a closed <details> and the like
      button.scrollIntoView({ block: "center", inline: "nearest" });
      const rect = button.getBoundingClientRect();
      const name = `${button.tagName.toLowerCase()} "${(button.textContent ?? "").trim().slice(0, 40)}"`;
      if (
        rect.left < -1 ||
        rect.right > window.innerWidth + 1 ||
        rect.top < -1 ||
        rect.bottom > window.innerHeight + 1
      ) {
        problems.push(
          `${name} outside the viewport (${Math.round(rect.left)}..${Math.round(rect.right)} of ${window.innerWidth})`,
        );
        continue;
      }
      for (let parent = button.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (style.overflowX === "visible" && style.overflowY === "visible") continue;
        const box = parent.getBoundingClientRect();
        if (
          rect.left < box.left - 1 ||
          rect.right > box.right + 1 ||
          rect.top < box.top - 1 ||
          rect.bottom > box.bottom + 1
        ) {
          problems.push(`${name} clipped by a scrolling ${parent.tagName.toLowerCase()}`);
          break;
        }
      }
    }
    window.scrollTo(0, 0);
    return problems;
  });
}

async function checkPage(page: Page, label: string): Promise<Problem[]> {
  await expect(page.locator(".animate-pulse")).toHaveCount(0);
  await expect(page.locator("h1").first()).toBeVisible();
  const problems: Problem[] = [];
  // Against the viewport's width: a phone zooms a too-wide page out, and then clientWidth grows with it.
  const overflow = await sidewaysOverflow(page);
  if (overflow > 1) problems.push(`document scrolls sideways by ${overflow} px`);
  problems.push(...(await unreachableButtons(page)));
  // A table wider than its card scrolls inside it, and says so (the hint follows a measurement:
  // it gets a moment before the tables without one are listed).
  const tablesWithoutHint = () =>
    [...document.querySelectorAll<HTMLElement>("main [role=region]")]
      .filter((region) => region.scrollWidth > region.clientWidth + 1)
      .filter((region) => !region.parentElement?.querySelector("[data-testid=scroll-hint]")?.checkVisibility())
      .map((region) => region.getAttribute("aria-label"));
  let hintless = await page.evaluate(tablesWithoutHint);
  for (const deadline = Date.now() + 3_000; hintless.length > 0 && Date.now() < deadline;) {
    await page.waitForTimeout(100);
    hintless = await page.evaluate(tablesWithoutHint);
  }
  for (const label of hintless) problems.push(`table "${label}" is cut off without a hint that it scrolls`);
  const axe = await new AxeBuilder({ page }).analyze();
  for (const violation of axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
    problems.push(
      `axe ${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 3)
        .join(", ")})`,
    );
  }
  await page.screenshot({ path: `e2e/artifacts/layout/${label}.png`, fullPage: true });
  return problems.map((p) => `${label}: ${p}`);
}

async function newPage(browser: Browser, baseURL: string, viewport: (typeof VIEWPORTS)[number]) {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: viewport.width, height: viewport.height },
    ...(viewport.name === "phone" ? { isMobile: true, hasTouch: true } : {}),
  });
  return { context, page: await context.newPage() };
}

test("the sign-in page fits both widths and passes axe", async ({ browser, baseURL }) => {
  const problems: Problem[] = [];
  for (const viewport of VIEWPORTS) {
    const { context, page } = await newPage(browser, baseURL!, viewport);
    await page.goto("/signin");
    problems.push(...(await checkPage(page, `anonymous-signin-${viewport.name}`)));
    await context.close();
  }
  expect(problems).toEqual([]);
});

for (const { role, email, pages } of ROLES) {
  test(`${role}: every page fits 1280×800 and 390×844, buttons reachable, no serious axe violation`, async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(180_000);
    const problems: Problem[] = [];
    for (const viewport of VIEWPORTS) {
      const { context, page } = await newPage(browser, baseURL!, viewport);
      await signIn(page, email);
      const csv = await (await page.request.get("/ledger/export")).text();
      const ledgerId = csv.split("\r\n")[1]!.split(",")[0]!;
      for (const path of pages) {
        const target = path === "LEDGER_EVENT" ? `/ledger/${ledgerId}` : path;
        await page.goto(target);
        const slug = path === "LEDGER_EVENT" ? "ledger-event" : path.slice(1).replace(/\//g, "-");
        problems.push(...(await checkPage(page, `${role}-${slug}-${viewport.name}`)));
      }
      await context.close();
    }
    expect(problems).toEqual([]);
  });
}
