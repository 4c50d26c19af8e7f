import { describe, expect, it } from "vitest";
import { preparedStatementNames } from "@/lib/core/db/prepared-statement-names";

describe("prepared statement names", () => {
  it("gives one stable name per distinct SQL text", () => {
    const nameOf = preparedStatementNames();
    const a = nameOf({ sql: "SELECT 1" });
    expect(nameOf({ sql: "SELECT 1" })).toBe(a);
    expect(nameOf({ sql: "SELECT 2" })).not.toBe(a);
  });

  it("stops naming past its bound so varying SQL cannot grow it without limit", () => {
    const nameOf = preparedStatementNames(2);
    expect(nameOf({ sql: "SELECT 1" })).not.toBe("");
    expect(nameOf({ sql: "SELECT 2" })).not.toBe("");
    expect(nameOf({ sql: "SELECT 3" })).toBe("");
    expect(nameOf({ sql: "SELECT 1" })).not.toBe("");
  });
});
