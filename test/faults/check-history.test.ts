// The set test's checker (faults/check-history.ts) must FAIL a run where the receiver lost,
// doubled or diverged — a harness that cannot fail proves nothing. Synthetic observations, no
// processes: the harness itself is `npm run test:faults`.
import { describe, expect, it } from "vitest";
import { checkHistory, violations } from "@/faults/check-history";
import type { Observations } from "@/faults/collect-observations";
import type { ProviderDeliveryAttempt } from "@/lib/operations/provider/client";

let seq = 0;
function attempt(
  eventId: string,
  outcome: "ok" | "duplicate" | "timeout" | "killed" | "503" | "lost",
): ProviderDeliveryAttempt {
  seq++;
  const base = {
    id: `att_${seq}`,
    eventId,
    tenantId: "t1",
    attempt: seq,
    trigger: "scheduled" as const,
    durationMs: 1,
    at: new Date(),
    nextRetryAt: null,
  };
  switch (outcome) {
    case "ok":
      return { ...base, statusCode: 200, responseExcerpt: '{"outcome":"applied"}', error: null, succeeded: true };
    case "duplicate":
      return {
        ...base,
        statusCode: 200,
        responseExcerpt: '{"outcome":"duplicate","first_outcome":"applied"}',
        error: null,
        succeeded: true,
      };
    case "timeout":
      return { ...base, statusCode: null, responseExcerpt: null, error: "no answer within 2000 ms", succeeded: false };
    case "killed":
      return {
        ...base,
        statusCode: null,
        responseExcerpt: null,
        error: "could not connect (UND_ERR_SOCKET)",
        succeeded: false,
      };
    case "503":
      return { ...base, statusCode: 503, responseExcerpt: "{}", error: "receiver answered 503", succeeded: false };
    case "lost":
      return {
        ...base,
        statusCode: null,
        responseExcerpt: null,
        error: "response lost after the receiver answered 200 (injected)",
        succeeded: false,
      };
  }
}

/** Three events, each delivered and committed once; the app's keys equal the provider's. */
function healthyRun(): Observations {
  return {
    attempts: [
      attempt("e1", "ok"),
      attempt("e2", "503"),
      attempt("e2", "ok"),
      attempt("e3", "timeout"),
      attempt("e3", "duplicate"),
    ],
    truth: [
      {
        id: "t1",
        sequence: 3,
        keys: [
          { id: "k1", status: "rotated" },
          { id: "k2", status: "active" },
        ],
      },
    ],
    ledger: ["e1", "e2", "e3"].map((eventId) => ({ eventId, tenantId: "t1", outcome: "applied" })),
    receipts: [
      ...["e1", "e2", "e3"].map((eventId) => ({ eventId, status: 200, outcome: "applied", count: 1 })),
      { eventId: "e3", status: 200, outcome: "duplicate", count: 1 },
      { eventId: "e2", status: 503, outcome: null, count: 1 },
    ],
    keys: [
      { id: "k1", tenantId: "t1", status: "rotated" },
      { id: "k2", tenantId: "t1", status: "active" },
    ],
  };
}
const SENT = ["e1", "e2", "e3"];

describe("the fault-injection checker", () => {
  it("passes a run where every event was committed once and the states match", () => {
    const figures = checkHistory(SENT, healthyRun());
    expect(figures).toMatchObject({
      sent: 3,
      acknowledged: 3,
      applied: 3,
      lost: 0,
      appliedTwice: 0,
      finalStateMismatches: 0,
      neverAcknowledged: 0,
    });
    expect(figures.committedButUnanswered).toEqual({ total: 1, afterTimeout: 1, afterConnectionError: 0, after503: 0 });
    expect(violations(figures)).toEqual([]);
  });

  it("counts an acknowledged event without a ledger row as lost", () => {
    const run = healthyRun();
    run.ledger = run.ledger.filter((row) => row.eventId !== "e2");
    const figures = checkHistory(SENT, run);
    expect(figures.lost).toBe(1);
    expect(figures.examples.lost).toEqual(["e2"]);
    expect(violations(figures)).toContain("1 acknowledged events were lost");
  });

  it("counts a 2xx the simulator dropped on purpose, without a commit, as a 200 for an uncommitted change", () => {
    const run = healthyRun();
    run.attempts.push(attempt("e4", "lost"), attempt("e4", "killed"));
    const figures = checkHistory([...SENT, "e4"], run);
    expect(figures).toMatchObject({ lost: 0, answeredWithoutCommit: 1, neverAcknowledged: 1 });
    expect(violations(figures)).toHaveLength(2);
  });

  it("counts a 200 cut off mid-response (a kill after the commit) as answered, not acknowledged", () => {
    const run = healthyRun();
    const cut = { ...attempt("e4", "killed"), statusCode: 200 };
    run.attempts.push(cut, attempt("e4", "duplicate"));
    run.ledger.push({ eventId: "e4", tenantId: "t1", outcome: "applied" });
    run.receipts.push({ eventId: "e4", status: 200, outcome: "applied", count: 1 });
    const figures = checkHistory([...SENT, "e4"], run);
    expect(figures).toMatchObject({ acknowledged: 4, answeredWithoutCommit: 0 });
    expect(figures.committedButUnanswered).toMatchObject({ total: 2, afterConnectionError: 1 });
    expect(
      violations(checkHistory([...SENT, "e4"], { ...run, ledger: run.ledger.filter((r) => r.eventId !== "e4") })),
    ).toContain("1 events were answered 2xx without a commit");
  });

  it("counts two ledger rows, or two non-duplicate 200 receipts, as applied twice", () => {
    const twoClaims = healthyRun();
    twoClaims.ledger.push({ eventId: "e1", tenantId: "t2", outcome: "applied" });
    expect(checkHistory(SENT, twoClaims).appliedTwice).toBe(1);

    const twoChanges = healthyRun();
    twoChanges.receipts.push({ eventId: "e3", status: 200, outcome: "stale", count: 1 });
    expect(checkHistory(SENT, twoChanges).appliedTwice).toBe(1);
  });

  it("counts a key whose status differs, a missing key and a second active key as mismatches", () => {
    const run = healthyRun();
    run.keys = [
      { id: "k1", tenantId: "t1", status: "active" },
      { id: "k2", tenantId: "t1", status: "active" },
      { id: "k9", tenantId: "t1", status: "revoked" },
    ];
    const figures = checkHistory(SENT, run);
    expect(figures).toMatchObject({ keyMismatches: 2, tenantsWithSeveralActiveKeys: 1, finalStateMismatches: 3 });
  });

  it("counts a claim without its receipt", () => {
    const run = healthyRun();
    run.receipts = run.receipts.filter((r) => !(r.eventId === "e1" && r.outcome === "applied"));
    expect(checkHistory(SENT, run).claimsWithoutReceipt).toBe(1);
  });
});
