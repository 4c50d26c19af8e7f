// Sends signed key-lifecycle events by hand, signed exactly as the provider and the tests sign.
//   npm run event -- created --tenant district-4417 --key key_a --seq 1
//   npm run event -- rotated --tenant district-4417 --key key_b --prev key_a --seq 2 --dup 3
//   npm run event -- revoked --tenant district-4417 --key key_b --seq 3 --id evt_custom
import { parseArgs } from "node:util";
import { parseEnv, type Env } from "../lib/core/config/env";
import { buildKeyEvent, signDelivery } from "../lib/operations/provider/signed-delivery";

const usage = `usage: npm run event -- <created|rotated|revoked> --tenant ID --key KEY_ID --seq N
  [--prev KEY_ID (rotated)] [--id EVENT_ID] [--dup N (send N times)] [--prefix P] [--scopes a,b]
  [--url http://localhost:3000] [--secret whsec_…]  (default secret: first of WEBHOOK_SECRETS, else the dev secret)`;

function fail(message: string): never {
  process.stderr.write(`event: ${message}\n${usage}\n`);
  process.exit(2);
}

// The app's settings as the app reads them (a development default: this is a tool for a dev loop).
let settings: Env;
try {
  settings = parseEnv({ ...process.env, NODE_ENV: "development" });
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    tenant: { type: "string" },
    key: { type: "string" },
    prev: { type: "string" },
    seq: { type: "string" },
    id: { type: "string" },
    dup: { type: "string", default: "1" },
    prefix: { type: "string" },
    scopes: { type: "string" },
    url: { type: "string", default: `http://localhost:${settings.PORT}` },
    secret: { type: "string" },
  },
});

const kind = positionals[0];
if (kind !== "created" && kind !== "rotated" && kind !== "revoked") fail(`unknown event kind ${kind ?? "(none)"}`);
if (!values.tenant || !values.key || !values.seq) fail("--tenant, --key and --seq are required");
if (kind === "rotated" && !values.prev) fail("rotated needs --prev");
const sequence = Number(values.seq);
const copies = Number(values.dup);
if (!Number.isSafeInteger(sequence) || sequence < 1) fail("--seq must be a positive whole number");
if (!Number.isSafeInteger(copies) || copies < 1 || copies > 10_000) fail("--dup must be between 1 and 10000");

const secret = values.secret ?? settings.WEBHOOK_SECRETS[0]!;
const event = buildKeyEvent({
  type: `key.${kind}`,
  tenantId: values.tenant,
  keyId: values.key,
  previousKeyId: values.prev,
  sequence,
  id: values.id,
  prefix: values.prefix,
  scopes: values.scopes?.split(",").filter(Boolean),
});
const body = JSON.stringify(event);
const target = new URL("/api/webhooks/keys", values.url).toString();

for (let copy = 1; copy <= copies; copy++) {
  // Signed afresh each time, like a real retry (new timestamp, same event id and body).
  const { headers } = signDelivery({ body, webhookId: String(event.id), secrets: [secret] });
  try {
    const response = await fetch(target, { method: "POST", headers, body });
    process.stdout.write(`${event.id} #${copy} → ${response.status} ${await response.text()}\n`);
  } catch (error) {
    fail(`could not reach ${target}: ${(error as Error).message}`);
  }
}
