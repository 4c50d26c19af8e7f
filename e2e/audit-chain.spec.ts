// The audit log's hash chain in the production build: the page's JSON-lines exports verify offline
// (the same code as `npm run audit:verify`), the public key is served without a session, the page
// shows the nightly check's verdict, and Settings adds an audit stream and a channel that keeps
// the checkpoints. Screenshots of both pages at both widths.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { runAuditVerify } from "../scripts/audit-verify-run";
import { E2E_DATABASE_URL, expect, screenshotBothWidths, sidewaysOverflow, signIn, test, USERS } from "./support";

/** `npm run audit -- <command>` on the e2e server's database (no worker runs here); its output, exit 0 or 1. */
function audit(command: "checkpoint" | "verify"): string {
  try {
    return execFileSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/audit.ts", command],
      {
        env: { ...process.env, DATABASE_URL: E2E_DATABASE_URL, LOG_LEVEL: "warn" },
        encoding: "utf8",
      },
    );
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** What the database's owner could do: one statement with every trigger off. */
async function asOwner(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL session_replication_role = replica");
    await client.query(sql);
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

test("the audit log's exports verify offline, and the page says what the nightly check found", async ({
  page,
  playwright,
}) => {
  // Four runs of `npm run audit` (a process start each) and two pages at two widths.
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, USERS.platformAdmin);

  const anonymous = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  const published = await anonymous.get("/api/audit/public-key");
  expect(published.status()).toBe(200);
  const { keys } = (await published.json()) as {
    keys: { id: string; algorithm: string; public_key: string; signing: boolean }[];
  };
  expect(keys[0]).toMatchObject({ algorithm: "Ed25519", signing: true });
  await anonymous.dispose();

  await page.goto("/audit");
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
  await expect(page.getByText("Not verified yet:")).toBeVisible();

  expect(audit("checkpoint")).toMatch(/^checkpoint \d+ signed/);
  expect(audit("verify")).toMatch(/^verified: \d+ entries/);

  const dir = mkdtempSync(path.join(tmpdir(), "keyhook-e2e-audit-"));
  const download = async (link: string, file: string) => {
    const response = await page.request.get(link);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toContain("application/x-ndjson");
    writeFileSync(path.join(dir, file), await response.body());
    return path.join(dir, file);
  };
  const chain = await download("/audit/export-chain", "chain.jsonl");
  const checkpoints = await download("/audit/export-checkpoints", "checkpoints.jsonl");
  const offline = await runAuditVerify([
    chain,
    "--checkpoints",
    checkpoints,
    "--public-key",
    `${keys[0]!.id}:${keys[0]!.public_key}`,
  ]);
  expect(offline.output).toMatch(/^verified: \d+ entries, from seq 1 .* up to checkpoint \d+ signed at /);
  expect(offline.code).toBe(0);

  await page.reload();
  await expect(page.getByText(/^Verified up to seq \d+/)).toBeVisible();
  await expect(page.getByRole("link", { name: "Export for verification (JSON lines)" })).toBeVisible();
  await screenshotBothWidths(page, "audit-log-verified");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(1);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The owner changes the first entry: the nightly check finds it and the page says so. Then the
  // entry is put back as it was, and the log verifies again (the specs after this one see it intact).
  await asOwner("UPDATE audit_log SET outcome = 'denied' WHERE seq = 1");
  expect(audit("verify")).toMatch(/^broken: changed at seq 1: /);
  await page.reload();
  await expect(page.getByText("The audit log does not verify (changed at seq 1):")).toBeVisible();
  await screenshotBothWidths(page, "audit-log-broken");
  await asOwner("UPDATE audit_log SET outcome = 'ok' WHERE seq = 1");
  expect(audit("verify")).toMatch(/^verified: /);
  await asOwner("DELETE FROM alerts WHERE kind = 'audit_chain_broken'");
});

test("a platform admin adds an audit stream and a channel that keeps the checkpoints", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, USERS.platformAdmin);
  await page.goto("/settings");
  const card = page.locator("section", { has: page.getByRole("heading", { name: "Alert channels" }) });
  const addForm = card.locator("form", { has: page.getByRole("button", { name: "Add channel" }) });
  const submit = async (kind: string, name: string, target: string, keepCheckpoints = false) => {
    await addForm.getByLabel("Kind").selectOption(kind);
    await addForm.getByLabel("Name").fill(name);
    await addForm.getByLabel("Webhook URL, or the email recipients (comma separated)").fill(target);
    if (keepCheckpoints) await addForm.getByLabel("Keep a copy of every signed audit checkpoint").check();
    await addForm.getByRole("button", { name: "Add channel" }).click();
  };

  await submit("audit_stream", "SIEM intake", "https://siem.example.org/keyhook/audit");
  await expect(addForm.getByRole("status")).toContainText(
    'Added the audit stream channel "SIEM intake". Its signing secret',
  );
  await submit("webhook", "Checkpoint witness", "https://witness.example.org/keyhook", true);
  await expect(addForm.getByRole("status")).toContainText('Added the JSON webhook channel "Checkpoint witness"');

  await page.reload();
  const table = card.getByRole("table", { name: "Alert channels" });
  await expect(table.getByText("Audit stream (SIEM)")).toBeVisible();
  await expect(table.getByText(/^backlog \d+ entr(y|ies) · sent up to seq 0$/)).toBeVisible();
  await expect(table.getByText("checkpoints", { exact: true })).toBeVisible();
  await expect(page.getByRole("table", { name: "Secret usage" }).getByText("v1 secret").first()).toBeVisible();
  await screenshotBothWidths(page, "settings-audit-stream");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(1);
});
