// How a count that stops at a bound reads: exact, an estimate said as one, or only "more than".
import { expect, it } from "vitest";
import { formatBoundedCount } from "@/components/ui/format";

it("reads exact, estimated (three significant digits, ≈ kept with its number) or past the bound", () => {
  expect(formatBoundedCount({ exact: true, value: 10_000 })).toBe("10,000");
  expect(formatBoundedCount({ exact: false, atLeast: 10_001, estimate: 1_671_916 })).toBe("≈\u00a01.67M");
  expect(formatBoundedCount({ exact: false, atLeast: 10_001, estimate: 12_345 })).toBe("≈\u00a012.3K");
  expect(formatBoundedCount({ exact: false, atLeast: 10_001, estimate: null })).toBe("more than 10,000");
});
