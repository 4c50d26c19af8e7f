// The iterative JSON printer behind the ledger page's payload: the same text as JSON.stringify
// where that works, and capped output (never a RangeError) where it does not.
import { describe, expect, it } from "vitest";
import { jsonByteLength, printJson } from "@/lib/core/json/print-json";

const sample = {
  id: "evt_1",
  n: -1.5e-7,
  big: 12345678901234567890,
  ok: true,
  none: null,
  list: [1, "two", { three: [3] }, []],
  empty: {},
  'quo"te\n': "é\u2028😀",
};

describe("printJson", () => {
  it("prints what JSON.stringify prints, compact and indented", () => {
    expect(printJson(sample).text).toBe(JSON.stringify(sample));
    expect(printJson(sample, { indent: 2 }).text).toBe(JSON.stringify(sample, null, 2));
    for (const value of ["s", 1, null, [], {}, [[[]]]]) expect(printJson(value).text).toBe(JSON.stringify(value));
  });

  it("prints 200,000 levels without recursion, cut at maxDepth", () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const printed = printJson({ deep }, { indent: 2, maxDepth: 4 });
    expect(printed.truncated).toBe(false);
    expect(printed.text).toBe('{\n  "deep": [\n    [\n      [\n        […]\n      ]\n    ]\n  ]\n}');
    expect(printJson(deep).text).toHaveLength(400_002);
  });

  it("stops at maxChars and says so", () => {
    const wide = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    const printed = printJson(wide, { indent: 2, maxChars: 1_000 });
    expect(printed.truncated).toBe(true);
    expect(printed.text.length).toBeLessThan(1_100);
    expect(printed.text.endsWith("… (truncated)")).toBe(true);
  });

  it("measures the UTF-8 size of any value, too deep for JSON.stringify included", () => {
    expect(jsonByteLength({ a: "é" })).toBe(Buffer.byteLength('{"a":"é"}'));
    let deep: unknown[] = [];
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(jsonByteLength(deep)).toBe(100_002);
  });
});
