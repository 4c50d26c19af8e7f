// The machine routes' bearer tokens (metrics, cron) go through one comparison: only the exact
// token passes, whatever the lengths involved, and an empty one never does.
import { describe, expect, it } from "vitest";
import { bearerMatches } from "@/http/bearer-token";

const TOKEN = "metrics-token-0123456789abcdef";

describe("bearerMatches", () => {
  it("passes the exact token, the scheme in any case", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
  });

  it("refuses a wrong token of any length, another scheme, and emptiness on either side", () => {
    for (const header of [
      null,
      "",
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${"x".repeat(TOKEN.length)}`,
      `Bearer ${TOKEN.repeat(40)}`,
      "Bearer ",
    ])
      expect(bearerMatches(header, TOKEN), String(header)).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
  });
});
