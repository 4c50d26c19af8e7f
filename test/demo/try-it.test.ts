// The README's "Try it", run as a newcomer runs it: `npm run dev` (next dev, the provider
// simulator with its background churn, the worker), then every command of the block, each
// followed by a check, in a real browser, of what its comment says: the outcome the command
// prints (`→ applied, then 2 × duplicate`) and what the district page then shows. The block is
// read from README.md, so the text and this test cannot drift: a claim this test does not know
// how to check fails it. The tour's promise of failed deliveries to practise on is checked the
// same way, by its words. The dev stack runs on this file's own database (per-file-database.ts).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD, DEMO_TOTP_SECRET } from "@/lib/operations/demo/demo-data";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { startDevStack, type DevStack } from "../support/dev-stack";
import { nextDemoCode } from "../support/demo-totp";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const port = Number(process.env.TRY_IT_PORT ?? 4543);
const providerPort = Number(process.env.TRY_IT_PROVIDER_PORT ?? 4544);

type Step = { command: string; outcomes: string[]; claims: string[] };

/** The ```sh block of README.md's "## Try it": each command and the `#   → outcome · claims` line under it. */
function readTryIt(readme: string): Step[] {
  const section = readme.slice(readme.indexOf("## Try it\n"));
  const block = /```sh\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf("\n## ", 1)))?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Try it"');
  const steps: Step[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("npm run event -- ")) steps.push({ command: line.trim(), outcomes: [], claims: [] });
    else if (line.startsWith("#   → ")) {
      const step = steps[steps.length - 1]!;
      // Parentheses explain; the rest is checked.
      const plain = line.slice("#   → ".length).replace(/\s*\([^)]*\)/g, "");
      const [outcome, screen = ""] = plain.split(" · ");
      const repeated = /^(\w+), then (\d+) × (\w+)$/.exec(outcome!.trim());
      step.outcomes = repeated
        ? [repeated[1]!, ...Array<string>(Number(repeated[2])).fill(repeated[3]!)]
        : [outcome!.trim()];
      step.claims = screen
        .split(";")
        .map((claim) => claim.trim())
        .filter(Boolean);
    } else if (line.trim() && !line.startsWith("#")) throw new Error(`unexpected line in Try it: ${line}`);
  }
  return steps;
}

let stack: DevStack;
let browser: Browser;
let page: Page;
let simulatorDir: string;

beforeAll(async () => {
  simulatorDir = mkdtempSync(path.join(tmpdir(), "keyhook-try-it-sim-"));
  stack = startDevStack({
    port,
    env: {
      DATABASE_URL: process.env.DATABASE_URL,
      PROVIDER_URL: `http://127.0.0.1:${providerPort}`,
      PROVIDER_SIM_DATA_DIR: simulatorDir,
      // The README says "within a minute": the sweep runs every second here, not every minute.
      ALERT_SWEEP_INTERVAL_MS: "1000",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
  page = await browser.newPage({ baseURL: stack.url });
  await stack.waitForAnswer("/signin");
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  rmSync(simulatorDir, { recursive: true, force: true });
}, 90_000);

async function checkClaim(claim: string, context: { tenantId: string; eventIds: string[] }): Promise<void> {
  const keys = [...claim.matchAll(/\b(key_\w+) (active|superseded|rotated|revoked)\b/g)];
  if (keys.length > 0 && keys.map((k) => k[0]).join(", ") === claim) {
    await page.goto(`/districts/${context.tenantId}`);
    for (const [, keyId, status] of keys) {
      const row = page.locator(`tr[data-key-id="${keyId}"]`);
      await expectSoon(async () => (await row.getAttribute("data-key-status", { timeout: 2_000 })) === status, claim);
      await row.getByText(status!, { exact: true }).waitFor();
    }
    return;
  }
  let match: RegExpExecArray | null;
  if (claim === "no active key") {
    await page.goto(`/districts/${context.tenantId}`);
    await page.getByTestId("no-active-key").waitFor();
  } else if ((match = /^nothing of (district-\d+) is live$/.exec(claim))) {
    await page.goto(`/districts/${match[1]}`);
    expect(await page.locator('tr[data-key-status="active"], tr[data-key-status="superseded"]').count(), claim).toBe(0);
  } else if (claim === "its alerts resolve at the next sweep") {
    expect(await prisma.alert.count({ where: { tenantId: context.tenantId } }), "alerts were raised").toBeGreaterThan(
      0,
    );
    const unresolved = () =>
      prisma.alert.findMany({
        where: { tenantId: context.tenantId, state: { not: "resolved" } },
        select: { kind: true, subject: true },
      });
    await expectSoon(async () => (await unresolved()).length === 0, claim).catch(async (error: Error) => {
      throw new Error(`${error.message}; still open: ${JSON.stringify(await unresolved())}`);
    });
  } else if (claim === "/quarantine lists it") {
    await page.goto("/quarantine");
    await page.getByRole("link", { name: context.eventIds[0]! }).waitFor();
  } else if ((match = /^(district-\d+) has no key$/.exec(claim))) {
    await page.goto(`/districts/${match[1]}`);
    await page.getByTestId("key-counts").getByText("No keys yet.").waitFor();
  } else {
    throw new Error(`README "Try it" claims "${claim}", which this test does not know how to check`);
  }
}

/** Background work (a sweep, a live refresh) lands within seconds: poll until it holds. */
async function expectSoon(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("README: Try it", () => {
  it("every command prints what its comment says, and the screen shows it", async () => {
    const steps = readTryIt(readFileSync(path.join(root, "README.md"), "utf8"));
    expect(steps.length).toBeGreaterThan(5);

    // What a newcomer sees first: the sign-in page offers the demo accounts (development only).
    await page.goto("/signin");
    await page.getByRole("heading", { name: "Demo sign-ins (development only)" }).waitFor();
    // next dev hydrates the page a while after it shows: until then the button does nothing.
    await expectSoon(
      async () => {
        await page.getByRole("button", { name: /admin@keyhook\.test/ }).click();
        return (await page.getByLabel("Password").inputValue()) === DEMO_PASSWORD;
      },
      "choosing a demo account fills the form",
      120_000,
    );
    expect(await page.getByLabel("Email").inputValue()).toBe("admin@keyhook.test");
    await page.getByRole("button", { name: "Sign in" }).click();
    // A staff account: the second step asks for a code of the demo authenticator key, the one
    // `npm run dev` printed (as the README says), computed here like an authenticator app would.
    await page.waitForURL(/\/signin\/factor/, { timeout: 180_000 });
    const printedKey = /demo authenticator key of the staff accounts: ([A-Z2-7]+)/.exec(stack.output())?.[1];
    expect(printedKey, "npm run dev prints the demo authenticator key").toBe(DEMO_TOTP_SECRET);
    expect(readFileSync(path.join(root, "README.md"), "utf8")).toContain(printedKey!);
    await page.getByLabel("Code from your authenticator app").fill(await nextDemoCode("try-it", printedKey!));
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(/\/overview$/, { timeout: 180_000 });

    const tenants = new Set<string>();
    for (const step of steps) {
      const tenantId = /--tenant (\S+)/.exec(step.command)![1]!;
      tenants.add(tenantId);
      const { stdout } = await run("sh", ["-c", step.command], {
        cwd: root,
        env: { ...process.env, PORT: String(port), NODE_ENV: "development" },
      });
      const printed = [...stdout.matchAll(/^(\S+) #\d+ → (\d+) (\{.*\})$/gm)];
      expect(
        printed.map(([, , status, body]) => `${status} ${(JSON.parse(body!) as { outcome: string }).outcome}`),
        step.command,
      ).toEqual(step.outcomes.map((outcome) => `200 ${outcome}`));
      const eventIds = printed.map(([, eventId]) => eventId!);
      for (const claim of step.claims) await checkClaim(claim, { tenantId, eventIds });
    }

    // The README's districts are the reader's alone: the simulator never heard of them, and
    // none of their sequences went missing.
    for (const tenantId of tenants) {
      const truth = await fetch(`http://127.0.0.1:${providerPort}/_sim/truth?tenant=${tenantId}`, {
        headers: { authorization: `Bearer ${DEV_PROVIDER_API_KEY}` },
      }).then((r) => r.json() as Promise<{ tenants: unknown[] }>);
      expect(truth.tenants, tenantId).toEqual([]);
      await page.goto(`/districts/${tenantId}`);
      await page.getByTestId("no-gaps").waitFor();
      // What the reader ends up looking at, at a laptop's and a phone's width.
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        expect(await page.evaluate((w) => document.documentElement.scrollWidth - w, width)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `e2e/artifacts/try-it-${tenantId}-${width}.png`, fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // "A short tour": Deliveries lists failed deliveries to practise on, refused for their
    // signature; asking the provider to redeliver one sends it again, signed right.
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const tour = readme.slice(readme.indexOf("## A short tour"), readme.indexOf("## Commands"));
    expect(tour.replace(/\s+/g, " ")).toContain(
      "Within a minute of `npm run dev` it lists failed deliveries to practise on: the demo's provider signs two of its first changes with a secret we do not hold",
    );
    const failed = page.locator("tr[data-event-id]").filter({ has: page.getByTestId("refusal-reason") });
    await expectSoon(
      async () => {
        await page.goto("/deliveries?status=failed");
        return (await failed.count()) >= 1;
      },
      "Deliveries lists a delivery refused for its signature",
      120_000,
    );
    await expect(failed.first().getByTestId("refusal-reason").textContent()).resolves.toContain(
      "the signature matches none of our signing secrets",
    );
    const eventId = (await failed.first().getAttribute("data-event-id"))!;
    await failed.first().getByRole("button", { name: "Ask provider to redeliver" }).click();
    await expectSoon(async () => {
      await page.goto(`/deliveries?event=${eventId}`);
      const row = page.locator(`tr[data-event-id="${eventId}"]`);
      return (await row.getByText("delivered").count()) > 0;
    }, "the redelivered event is delivered");
    await page.screenshot({ path: "e2e/artifacts/try-it-deliveries-practice-1280.png", fullPage: true });
  }, 600_000);
});
