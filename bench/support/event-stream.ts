// Unique, valid key-lifecycle deliveries for load tests: tenants round-robin, each tenant's
// events in sequence (created, then rotations), signed like the provider signs.
import { createHmac } from "node:crypto";
import { signDelivery } from "../../lib/operations/provider/signed-delivery";

export function createEventStream(options: { secret: string; tenants: number; runId: string }) {
  const key = Buffer.from(options.secret.replace(/^whsec_/, ""), "base64");
  const sequences = new Array<number>(options.tenants).fill(0);
  let counter = 0;

  // node:crypto instead of the library's pure-JS HMAC: the load generator shares the 2 cores
  // with the app, so it must stay cheap. Checked against the library once below.
  const sign = (id: string, body: string) => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
    return {
      "content-type": "application/json",
      // What a sender on Node's fetch (the simulator) sends: the server may compress its answer.
      "accept-encoding": "gzip, deflate",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${signature}`,
    };
  };

  const next = () => {
    const tenantIndex = counter++ % options.tenants;
    const sequence = ++sequences[tenantIndex]!;
    const tenantId = `bench-${options.runId}-${tenantIndex}`;
    const keyId = `key_${options.runId}_${tenantIndex}_${sequence}`;
    const id = `evt_${options.runId}_${counter}`;
    const event: Record<string, unknown> = {
      id,
      type: sequence === 1 ? "key.created" : "key.rotated",
      tenant_id: tenantId,
      key_id: keyId,
      sequence,
      occurred_at: new Date().toISOString(),
      data: { prefix: `ik_live_${String(counter).slice(-4)}`, scopes: ["rosters:read"] },
    };
    if (sequence > 1) event.previous_key_id = `key_${options.runId}_${tenantIndex}_${sequence - 1}`;
    const body = JSON.stringify(event);
    return { id, body, headers: sign(id, body) };
  };

  return { next, sign };
}

export function assertSignerMatchesLibrary(secret: string): void {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const timestamp = new Date(Math.floor(Date.now() / 1000) * 1000);
  const body = '{"probe":true}';
  const expected = signDelivery({ body, webhookId: "evt_probe", secrets: [secret], timestamp }).headers[
    "webhook-signature"
  ];
  const actual = `v1,${createHmac("sha256", key)
    .update(`evt_probe.${timestamp.getTime() / 1000}.${body}`)
    .digest("base64")}`;
  if (expected !== actual) throw new Error("bench signer disagrees with lib/operations/provider/signed-delivery");
}
