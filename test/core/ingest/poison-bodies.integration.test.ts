// Bodies PostgreSQL can never store are the sender's error: 400 with a receipt on every attempt,
// refused before the database (not a 503 that invites retries for ever), and the app keeps
// answering. Each poison is first shown to fail in PostgreSQL itself, so the test cannot pass
// by a body that was harmless anyway.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";
import { MAX_PAYLOAD_DEPTH, unstorableNumberOffset } from "@/lib/core/ingest/storable-json";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent, signedRequest } from "../../support/webhooks";

beforeEach(resetDatabase);

/** A valid, signed key.created whose extra field `extra` holds `value` written as raw JSON text. */
function withExtra(id: string, extraJson: string): string {
  const event = keyEvent({ id, type: "key.created", tenantId: `district-${id}`, keyId: `key_${id}`, sequence: 1 });
  return JSON.stringify({ ...event, extra: "@EXTRA@" }).replace('"@EXTRA@"', extraJson);
}

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

async function postgresRefuses(text: string): Promise<string> {
  try {
    await prisma.$queryRawUnsafe("SELECT $1::jsonb IS NOT NULL AS ok", text);
    return "accepted";
  } catch (error) {
    return /Code: `(\w+)`/.exec(String((error as Error).message))?.[1] ?? "refused";
  }
}

async function answer(body: string, webhookId: string) {
  const response = await handleKeyWebhook(signedRequest(body, { webhookId }));
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

describe("poison bodies: 400 with a receipt, never 503, and the app still answers", () => {
  it.each([
    ["20,000 nested arrays", "evt_p_deep", nested(20_000), "54001", /nests deeper than 64 levels at extra/],
    [
      "a number too large for numeric (1e400000)",
      "evt_p_big",
      "1e400000",
      "22003",
      /number out of the range PostgreSQL can store/,
    ],
    [
      "a number too small for numeric (1e-400000)",
      "evt_p_small",
      "1e-400000",
      "22003",
      /number out of the range PostgreSQL can store/,
    ],
    ["a lone surrogate escape", "evt_p_surrogate", '"\\ud800"', "22P02", /lone UTF-16 surrogate at extra/],
    ["a lone low surrogate in a key", "evt_p_key", '{"\\udc00x": 1}', "22P02", /lone UTF-16 surrogate at extra/],
    ["an escaped NUL in a nested key", "evt_p_nulkey", '{"a\\u0000": 1}', "22P05", /NUL character/],
  ])("%s", async (_name, id, extraJson, postgresCode, message) => {
    const body = withExtra(id, extraJson);
    expect(await postgresRefuses(body)).toBe(postgresCode);

    for (let attempt = 1; attempt <= 2; attempt++) {
      const result = await answer(body, id);
      expect(result.status).toBe(400);
      expect(String(result.body.error)).toMatch(message);
      expect(result.text).not.toMatch(/at .*\.ts:\d+/);
    }
    const receipts = await prisma.receipt.findMany({ where: { webhookId: id }, orderBy: { id: "asc" } });
    expect(receipts.map((r) => [r.status, r.signatureVerdict, r.bodyBytes])).toEqual([
      [400, "valid", Buffer.byteLength(body)],
      [400, "valid", Buffer.byteLength(body)],
    ]);
    expect(await prisma.processedEvent.count()).toBe(0);

    // The app still answers normally.
    const next = await deliver(
      keyEvent({
        id: `${id}_next`,
        type: "key.created",
        tenantId: "district-poison",
        keyId: `key_${id}_next`,
        sequence: 1,
      }),
    );
    expect(next).toEqual({ status: 200, body: { outcome: "applied" } });
  });

  it("nesting: exactly the limit is applied, one level more is refused", async () => {
    // The envelope is level 1, so the extra field may hold MAX_PAYLOAD_DEPTH - 1 levels.
    const atLimit = withExtra("evt_depth_ok", nested(MAX_PAYLOAD_DEPTH - 1));
    expect((await answer(atLimit, "evt_depth_ok")).body).toEqual({ outcome: "applied" });
    const over = withExtra("evt_depth_over", nested(MAX_PAYLOAD_DEPTH));
    expect((await answer(over, "evt_depth_over")).status).toBe(400);
  });

  it("8,000 levels, accepted before the limit existed, are refused at ingest", async () => {
    const body = withExtra("evt_8000", nested(8_000));
    expect(await postgresRefuses(body)).toBe("accepted"); // PostgreSQL alone would have stored it
    expect((await answer(body, "evt_8000")).status).toBe(400);
    expect(await prisma.processedEvent.count()).toBe(0);
  });

  it('no false 400: a literal backslash followed by "u0000" (JSON "C:\\\\u0000dir") is applied and kept as written', async () => {
    const keyId = "C:\\u0000dir"; // backslash, u, 0, 0, 0, 0: no NUL anywhere
    expect(keyId).toHaveLength(11);
    const result = await deliver(
      keyEvent({ id: "evt_backslash", type: "key.created", tenantId: "district-poison", keyId, sequence: 1 }),
    );
    expect(result).toEqual({ status: 200, body: { outcome: "applied" } });
    expect((await prisma.apiKey.findFirstOrThrow()).id).toBe(keyId);
    const ledger = await prisma.processedEvent.findFirstOrThrow();
    expect((ledger.payload as { key_id: string }).key_id).toBe(keyId);
  });

  it("numbers inside PostgreSQL's range are accepted, whatever JavaScript makes of them", async () => {
    for (const [id, literal] of [
      ["evt_n_max", "9e131071"],
      ["evt_n_min", "1e-16383"],
      ["evt_n_frac", "0." + "0".repeat(16_382) + "1"],
    ] as const) {
      expect((await answer(withExtra(id, literal), id)).body).toEqual({ outcome: "applied" });
    }
  });
});

describe("unstorableNumberOffset agrees with PostgreSQL's numeric", () => {
  it("on both sides of every limit", async () => {
    const zeros = (n: number) => "0".repeat(n);
    const literals = [
      "0",
      "-0",
      "1",
      "-12.5",
      "1e5",
      "1E+5",
      "1.5e-3",
      "0e400000",
      "0.000e400000",
      "0e-400000",
      "0.0e-99999",
      "1e131071",
      "9e131071",
      "1e131072",
      "-1e131072",
      "100e131069",
      "100e131070",
      "0.001e131074",
      "0.001e131075",
      "1" + zeros(131_071),
      "1" + zeros(131_072),
      "1e-16383",
      "1e-16384",
      "10e-16384",
      "1.0e-16383",
      "1.000e-16381",
      "1.5e-16382",
      "1.5e-16383",
      "0." + zeros(16_382) + "1",
      "0." + zeros(16_383) + "1",
      "0." + zeros(16_383) + "1e1",
      "0." + zeros(16_384),
      "1e400000",
      "1e-400000",
      "1e99999999999999999999",
      "1e-99999999999999999999",
    ];
    for (const literal of literals) {
      const ours = unstorableNumberOffset(`[${literal}]`) === -1 ? "accepted" : "refused";
      const theirs = (await postgresRefuses(`[${literal}]`)) === "accepted" ? "accepted" : "refused";
      expect(ours, literal.length > 40 ? `${literal.slice(0, 20)}…(${literal.length} chars)` : literal).toBe(theirs);
    }
  });

  it("skips strings, escaped quotes included, and points at the literal", () => {
    expect(unstorableNumberOffset('{"a":"1e400000","b\\"1e400000":"\\\\"}')).toBe(-1);
    expect(unstorableNumberOffset('{"a":"x\\\\","b":1e400000}')).toBe(15);
  });
});
