// The retention window rule on its own (lib/core/retention/retention-window.ts): the one comparison the
// environment, the settings form, the purge and the readiness check all use.
import { describe, expect, it } from "vitest";
import { retentionWindowHours, retentionWindowProblem } from "@/lib/core/retention/retention-window";

describe("the retention window rule", () => {
  it("a window equal to horizon + margin is refused; one hour longer is safe", () => {
    // 2 days = 48 h; horizon 28 h + margin 20 h = 48 h: a retry at the horizon finds no claim.
    expect(retentionWindowProblem({ retentionDays: 2, retryHorizonHours: 28, marginHours: 20 })).toEqual({
      field: "retentionDays",
      message:
        "retention window 2 days (48 h) must be longer than the provider retry horizon 28 h + margin 20 h = 48 h, or a late retry would be applied twice",
    });
    expect(retentionWindowProblem({ retentionDays: 2, retryHorizonHours: 27, marginHours: 20 })).toBeNull();
  });

  it("takes the horizon as given: a longer horizon chosen by the caller raises the bar", () => {
    expect(retentionWindowHours({ retentionDays: 3, retryHorizonHours: 48, marginHours: 24 })).toEqual({
      windowHours: 72,
      neededHours: 72,
    });
    expect(retentionWindowProblem({ retentionDays: 3, retryHorizonHours: 48, marginHours: 24 })?.field).toBe(
      "retentionDays",
    );
  });

  it("a payload kept longer than its claim is refused, the window's problem first", () => {
    expect(
      retentionWindowProblem({ retentionDays: 10, retryHorizonHours: 28, marginHours: 24, payloadRetentionDays: 11 }),
    ).toEqual({
      field: "payloadRetentionDays",
      message: "payload retention 11 days must not exceed the retention window 10 days",
    });
    expect(
      retentionWindowProblem({ retentionDays: 10, retryHorizonHours: 28, marginHours: 24, payloadRetentionDays: 10 }),
    ).toBeNull();
    expect(
      retentionWindowProblem({ retentionDays: 1, retryHorizonHours: 28, marginHours: 24, payloadRetentionDays: 5 })
        ?.field,
    ).toBe("retentionDays");
  });
});
