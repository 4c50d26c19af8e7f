// Codes of the demo authenticator key (lib/operations/demo/demo-data.ts), as an authenticator app
// would show them, for the helpers that sign in as a demo staff account. A code is accepted once
// (its time step is remembered), so each sign-in of one process takes a step not used before: the
// current one, else the next (accepted as clock drift), else it waits for the clock to get there.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateSync } from "otplib";
import { DEMO_TOTP_SECRET } from "../../lib/operations/demo/demo-data";

const PERIOD_MS = 30_000;
// The browser tests share one server across worker processes (Playwright starts a new one after a
// failure): there the steps used are kept in a file, so a new worker does not offer a spent code.
const STATE_FILE = process.env.KEYHOOK_DEMO_TOTP_STATE;
const lastStep = new Map<string, number>();

function loadState(): void {
  if (!STATE_FILE || !existsSync(STATE_FILE)) return;
  for (const [key, step] of JSON.parse(readFileSync(STATE_FILE, "utf8")) as [string, number][])
    lastStep.set(key, Math.max(step, lastStep.get(key) ?? -Infinity));
}

export function totpCode(secret: string, step: number): string {
  return generateSync({ secret, epoch: step * (PERIOD_MS / 1000) });
}

export function currentTotpStep(now = Date.now()): number {
  return Math.floor(now / PERIOD_MS);
}

/** A demo-key code for `who` that this process has not used yet. */
export async function nextDemoCode(who: string, secret = DEMO_TOTP_SECRET): Promise<string> {
  loadState();
  const step = Math.max(currentTotpStep(), (lastStep.get(`${who}:${secret}`) ?? -Infinity) + 1);
  // The server takes the step after ours at most: until the clock is within one step, wait.
  const waitMs = (step - 1) * PERIOD_MS - Date.now() + 5;
  // Said, because it is time a test spends doing nothing: sign in as another user, or once.
  if (waitMs > 0) process.stderr.write(`demo-totp: ${who} waits ${(waitMs / 1000).toFixed(1)} s for an unused code\n`);
  while (currentTotpStep() < step - 1)
    await new Promise((resolve) => setTimeout(resolve, (step - 1) * PERIOD_MS - Date.now() + 5));
  lastStep.set(`${who}:${secret}`, step);
  if (STATE_FILE) writeFileSync(STATE_FILE, JSON.stringify([...lastStep]));
  return totpCode(secret, step);
}
