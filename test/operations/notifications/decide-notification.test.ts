// The debounce rule on its own: which message (if any) an alert's state asks for, per channel.
import { describe, expect, it } from "vitest";
import { decideNotification, type NotificationState } from "@/lib/operations/notifications/decide-notification";

const MIN = 60_000;
const t0 = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(t0.getTime() + minutes * MIN);
const channel = { id: "ch_1", createdAt: at(-60) };
const decide = (alert: { state: string; lastSeenAt: Date }, state: NotificationState | null, now: Date) =>
  decideNotification({ alert: { id: 7n, ...alert }, state, channel, now, repeatIntervalMs: 30 * MIN });

describe("decideNotification", () => {
  it("a new alert goes out at once; not again while nothing changes", () => {
    const first = decide({ state: "open", lastSeenAt: at(0) }, null, at(0));
    expect(first).toMatchObject({ event: "alert.opened", idempotencyKey: "notify:ch_1:7:1:opened" });
    expect(decide({ state: "open", lastSeenAt: at(0) }, first!.next, at(90))).toBeNull();
  });

  it("repeats at most once per interval, and only while open", () => {
    const opened = decide({ state: "open", lastSeenAt: at(0) }, null, at(0))!.next;
    expect(decide({ state: "open", lastSeenAt: at(10) }, opened, at(10))).toBeNull(); // within the interval
    const repeat = decide({ state: "open", lastSeenAt: at(10) }, opened, at(30));
    expect(repeat).toMatchObject({ event: "alert.repeated", idempotencyKey: "notify:ch_1:7:1:repeated:1" });
    expect(decide({ state: "open", lastSeenAt: at(40) }, repeat!.next, at(45))).toBeNull();
    expect(decide({ state: "open", lastSeenAt: at(40) }, repeat!.next, at(60))?.idempotencyKey).toBe(
      "notify:ch_1:7:1:repeated:2",
    );
    expect(decide({ state: "acknowledged", lastSeenAt: at(40) }, repeat!.next, at(600))).toBeNull();
  });

  it("resolved: one digest; raised again: a new round", () => {
    const opened = decide({ state: "open", lastSeenAt: at(0) }, null, at(0))!.next;
    const resolved = decide({ state: "resolved", lastSeenAt: at(5) }, opened, at(5));
    expect(resolved).toMatchObject({ event: "alert.resolved", idempotencyKey: "notify:ch_1:7:1:resolved" });
    expect(decide({ state: "resolved", lastSeenAt: at(5) }, resolved!.next, at(50))).toBeNull();
    expect(decide({ state: "open", lastSeenAt: at(60) }, resolved!.next, at(60))).toMatchObject({
      event: "alert.opened",
      idempotencyKey: "notify:ch_1:7:2:opened",
    });
  });

  it("nothing for an alert resolved before the channel heard of it", () => {
    expect(decide({ state: "resolved", lastSeenAt: at(0) }, null, at(0))).toBeNull();
  });

  it("an alert still open from before the channel existed goes out to it at once", () => {
    expect(decide({ state: "open", lastSeenAt: at(-61) }, null, at(0))).toMatchObject({ event: "alert.opened" });
    expect(decide({ state: "acknowledged", lastSeenAt: at(-600) }, null, at(0))).toMatchObject({
      event: "alert.opened",
    });
  });
});
