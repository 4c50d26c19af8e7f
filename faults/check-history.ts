// The checker of the set test: what the sender sent and was told, against what the receiver
// committed. Pure: observations in, figures out.
//
//   sent                 unique events the simulator emitted
//   acknowledged         events with at least one 2xx attempt in the sender's history
//   applied              events with a ledger row (processed_events), by event id
//   lost                 acknowledged events without a ledger row                      must be 0
//   never acknowledged   sent events with no 2xx attempt after the drain               must be 0
//   applied twice        event ids with more than one ledger row, or more than one
//                        200 receipt whose outcome is not "duplicate"                  must be 0
//   final-state mismatches  keys whose status in api_keys differs from the provider's
//                        truth (or exist on one side only), plus tenants with more
//                        than one active key                                           must be 0
// And two more the design promises:
//   200 without commit   events the app answered 2xx (including answers the simulator dropped
//                        on purpose) without a ledger row — a 200 for an uncommitted change
//   claims without receipt  ledger rows without the 200 receipt written in the same statement
import type { ProviderDeliveryAttempt } from "../lib/operations/provider/client";
import type { Observations } from "./collect-observations";

export type Figures = {
  sent: number;
  acknowledged: number;
  applied: number;
  lost: number;
  neverAcknowledged: number;
  appliedTwice: number;
  finalStateMismatches: number;
  keyMismatches: number;
  tenantsWithSeveralActiveKeys: number;
  answeredWithoutCommit: number;
  claimsWithoutReceipt: number;
  /** Ledger rows for event ids the simulator never sent (nothing else writes to this database). */
  unexpectedClaims: number;
  ledgerOutcomes: Record<string, number>;
  deliveries: {
    total: number;
    succeeded: number;
    answered503: number;
    connectionErrors: number;
    timeouts: number;
    lostResponses: number;
    otherFailures: number;
  };
  /** The app committed but the sender never got that answer: a later attempt was told "duplicate". */
  committedButUnanswered: { total: number; afterTimeout: number; afterConnectionError: number; after503: number };
  examples: {
    lost: string[];
    neverAcknowledged: string[];
    appliedTwice: string[];
    mismatches: string[];
    answeredWithoutCommit: string[];
    claimsWithoutReceipt: string[];
  };
};

type AttemptKind =
  "succeeded" | "lost_response" | "cut_after_2xx" | "http_503" | "http_other" | "timeout" | "connection" | "other";

/** The dispatcher's error strings (simulator/dispatcher.ts) say what happened to an attempt. */
export function classifyAttempt(attempt: ProviderDeliveryAttempt): AttemptKind {
  if (attempt.succeeded) return "succeeded";
  const error = attempt.error ?? "";
  if (error.startsWith("response lost after the receiver answered 2")) return "lost_response";
  // The status line of a 200 arrived, then the connection died (a SIGKILL mid-response).
  if (attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300) return "cut_after_2xx";
  if (attempt.statusCode === 503) return "http_503";
  if (attempt.statusCode !== null) return "http_other";
  if (error.startsWith("no answer within")) return "timeout";
  if (error.startsWith("could not connect")) return "connection";
  return "other";
}

function outcomeOf(excerpt: string | null): string | null {
  try {
    return (JSON.parse(excerpt ?? "") as { outcome?: string }).outcome ?? null;
  } catch {
    return null;
  }
}

const first = (ids: Iterable<string>) => [...ids].slice(0, 10);

export function checkHistory(sentIds: string[], observations: Observations): Figures {
  const sent = new Set(sentIds);
  const attemptsByEvent = new Map<string, ProviderDeliveryAttempt[]>();
  const deliveries = {
    total: 0,
    succeeded: 0,
    answered503: 0,
    connectionErrors: 0,
    timeouts: 0,
    lostResponses: 0,
    otherFailures: 0,
  };
  for (const attempt of observations.attempts) {
    (attemptsByEvent.get(attempt.eventId) ?? attemptsByEvent.set(attempt.eventId, []).get(attempt.eventId)!).push(
      attempt,
    );
    deliveries.total++;
    const kind = classifyAttempt(attempt);
    if (kind === "succeeded") deliveries.succeeded++;
    else if (kind === "lost_response") deliveries.lostResponses++;
    else if (kind === "http_503") deliveries.answered503++;
    else if (kind === "timeout") deliveries.timeouts++;
    else if (kind === "connection" || kind === "cut_after_2xx") deliveries.connectionErrors++;
    else deliveries.otherFailures++;
  }

  const claimsPerEvent = new Map<string, number>();
  const ledgerOutcomes: Record<string, number> = {};
  for (const row of observations.ledger) {
    claimsPerEvent.set(row.eventId, (claimsPerEvent.get(row.eventId) ?? 0) + 1);
    ledgerOutcomes[row.outcome] = (ledgerOutcomes[row.outcome] ?? 0) + 1;
  }
  const changeReceiptsPerEvent = new Map<string, number>();
  for (const r of observations.receipts) {
    if (r.eventId === null || r.status !== 200 || r.outcome === "duplicate") continue;
    changeReceiptsPerEvent.set(r.eventId, (changeReceiptsPerEvent.get(r.eventId) ?? 0) + r.count);
  }

  const acknowledged = new Set<string>();
  const answered2xx = new Set<string>();
  const committedButUnanswered = { total: 0, afterTimeout: 0, afterConnectionError: 0, after503: 0 };
  for (const [eventId, attempts] of attemptsByEvent) {
    if (!sent.has(eventId)) continue;
    attempts.sort((a, b) => a.attempt - b.attempt);
    const kinds = attempts.map(classifyAttempt);
    if (kinds.includes("succeeded")) acknowledged.add(eventId);
    if (kinds.some((k) => k === "succeeded" || k === "lost_response" || k === "cut_after_2xx"))
      answered2xx.add(eventId);
    // The first answer the sender really got was "duplicate": an earlier attempt committed and
    // its answer died on the way (a SIGKILL after the commit, a held-back response, a restart).
    const firstAnswer = kinds.findIndex((k) => k === "succeeded" || k === "lost_response");
    if (
      firstAnswer > 0 &&
      kinds[firstAnswer] === "succeeded" &&
      outcomeOf(attempts[firstAnswer]!.responseExcerpt) === "duplicate"
    ) {
      const before = kinds.slice(0, firstAnswer);
      committedButUnanswered.total++;
      if (before.includes("timeout")) committedButUnanswered.afterTimeout++;
      else if (before.includes("connection") || before.includes("cut_after_2xx"))
        committedButUnanswered.afterConnectionError++;
      else if (before.includes("http_503")) committedButUnanswered.after503++;
    }
  }

  const applied = [...sent].filter((id) => claimsPerEvent.has(id));
  const lost = [...acknowledged].filter((id) => !claimsPerEvent.has(id));
  const neverAcknowledged = [...sent].filter((id) => !acknowledged.has(id));
  const answeredWithoutCommit = [...answered2xx].filter((id) => !claimsPerEvent.has(id));
  const twice = new Set<string>();
  for (const [id, n] of claimsPerEvent) if (n > 1) twice.add(id);
  for (const [id, n] of changeReceiptsPerEvent) if (n > 1) twice.add(id);
  const claimsWithoutReceipt = [...claimsPerEvent.keys()].filter((id) => !changeReceiptsPerEvent.has(id));
  const unexpectedClaims = [...claimsPerEvent.keys()].filter((id) => !sent.has(id)).length;

  // Final state: every key on either side, compared by id, tenant and status.
  const expected = new Map<string, { tenantId: string; status: string }>();
  for (const tenant of observations.truth)
    for (const key of tenant.keys) expected.set(key.id, { tenantId: tenant.id, status: key.status });
  const actual = new Map(observations.keys.map((k) => [k.id, { tenantId: k.tenantId, status: k.status }]));
  const mismatches: string[] = [];
  for (const id of new Set([...expected.keys(), ...actual.keys()])) {
    const want = expected.get(id);
    const got = actual.get(id);
    if (want?.status !== got?.status || want?.tenantId !== got?.tenantId) {
      mismatches.push(
        `${id}: provider ${want ? `${want.tenantId}/${want.status}` : "none"}, app ${got ? `${got.tenantId}/${got.status}` : "none"}`,
      );
    }
  }
  const activePerTenant = new Map<string, number>();
  for (const key of observations.keys)
    if (key.status === "active") activePerTenant.set(key.tenantId, (activePerTenant.get(key.tenantId) ?? 0) + 1);
  const severalActive = [...activePerTenant]
    .filter(([, n]) => n > 1)
    .map(([tenant, n]) => `${tenant}: ${n} active keys`);

  return {
    sent: sent.size,
    acknowledged: acknowledged.size,
    applied: applied.length,
    lost: lost.length,
    neverAcknowledged: neverAcknowledged.length,
    appliedTwice: twice.size,
    finalStateMismatches: mismatches.length + severalActive.length,
    keyMismatches: mismatches.length,
    tenantsWithSeveralActiveKeys: severalActive.length,
    answeredWithoutCommit: answeredWithoutCommit.length,
    claimsWithoutReceipt: claimsWithoutReceipt.length,
    unexpectedClaims,
    ledgerOutcomes,
    deliveries,
    committedButUnanswered,
    examples: {
      lost: first(lost),
      neverAcknowledged: first(neverAcknowledged),
      appliedTwice: first(twice),
      mismatches: first([...mismatches, ...severalActive]),
      answeredWithoutCommit: first(answeredWithoutCommit),
      claimsWithoutReceipt: first(claimsWithoutReceipt),
    },
  };
}

/** Why the run fails; empty when every invariant held. */
export function violations(figures: Figures): string[] {
  const found: string[] = [];
  if (figures.lost > 0) found.push(`${figures.lost} acknowledged events were lost`);
  if (figures.appliedTwice > 0) found.push(`${figures.appliedTwice} events were applied twice`);
  if (figures.finalStateMismatches > 0) found.push(`${figures.finalStateMismatches} final-state mismatches`);
  if (figures.neverAcknowledged > 0) found.push(`${figures.neverAcknowledged} events were never acknowledged`);
  if (figures.answeredWithoutCommit > 0)
    found.push(`${figures.answeredWithoutCommit} events were answered 2xx without a commit`);
  if (figures.claimsWithoutReceipt > 0) found.push(`${figures.claimsWithoutReceipt} claims have no receipt`);
  if (figures.unexpectedClaims > 0) found.push(`${figures.unexpectedClaims} ledger rows for events never sent`);
  return found;
}
