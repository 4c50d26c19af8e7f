// The event types, outcomes and key statuses of lib/core/vocabulary.ts are the ones the database
// knows: its CHECK constraints (read from the migrated database) and the literals of the
// claim-and-apply function's and the terminal-status trigger's sources.
import { describe, expect, expectTypeOf, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { ApplyResult } from "@/lib/core/ingest/apply-key-event";
import type { IngestResult } from "@/lib/core/ingest/ingest-result";
import { readFunctionSource } from "@/tooling/migrations/sql-functions";
import {
  EVENT_TYPES,
  INGEST_OUTCOMES,
  KEY_STATUSES,
  LEDGER_OUTCOMES,
  LIVE_KEY_STATUSES,
  TERMINAL_KEY_STATUSES,
  type IngestOutcome,
} from "@/lib/core/vocabulary";

const source = await readFunctionSource("keyhook_apply_event");
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
const captures = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((match) => match[1]!);

/** The quoted values of a CHECK (column IN (…)) constraint, as PostgreSQL renders it. */
async function checkConstraintValues(name: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ def: string }[]>`
    SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = ${name}`;
  expect(rows, `constraint ${name}`).toHaveLength(1);
  return sorted(captures(rows[0]!.def, /'([^']*)'::text/g));
}

describe("one vocabulary for TypeScript and SQL", () => {
  it("key statuses: api_keys_status_check allows exactly KEY_STATUSES", async () => {
    expect(await checkConstraintValues("api_keys_status_check")).toEqual(sorted(KEY_STATUSES));
  });

  it("live and terminal statuses split KEY_STATUSES; the terminal-status trigger names exactly the terminal ones", async () => {
    expect(sorted([...LIVE_KEY_STATUSES, ...TERMINAL_KEY_STATUSES])).toEqual(sorted(KEY_STATUSES));
    expect(LIVE_KEY_STATUSES.length + TERMINAL_KEY_STATUSES.length).toBe(KEY_STATUSES.length);
    const trigger = await readFunctionSource("keyhook_key_status_is_terminal");
    const terminal = /OLD\.status IN \(([^)]*)\)/.exec(trigger);
    expect(terminal, "the trigger function's list of terminal statuses").not.toBeNull();
    expect(sorted(captures(terminal![1]!, /'([^']*)'/g))).toEqual(sorted(TERMINAL_KEY_STATUSES));
  });

  it("ledger outcomes: processed_events_outcome_check allows exactly LEDGER_OUTCOMES and the claim's 'pending'", async () => {
    expect(await checkConstraintValues("processed_events_outcome_check")).toEqual(
      sorted(["pending", ...LEDGER_OUTCOMES]),
    );
  });

  it("event types: the function applies exactly EVENT_TYPES and names no other", () => {
    const known = /v_known boolean := p_type IN \(([^)]*)\)/.exec(source);
    expect(known, "the function's list of known types").not.toBeNull();
    expect(sorted(captures(known![1]!, /'([^']*)'/g))).toEqual(sorted(EVENT_TYPES));
    expect(sorted(captures(source, /'(key\.[a-z_]+)'/g))).toEqual(sorted(EVENT_TYPES));
  });

  it("ingest outcomes: the function returns exactly INGEST_OUTCOMES", () => {
    const returned = [
      ...captures(source, /v_outcome text := '([a-z_]+)'/g),
      ...captures(source, /v_outcome := '([a-z_]+)'/g),
      ...captures(source, /SELECT '([a-z_]+)'::text/g),
    ];
    expect(sorted(returned)).toEqual(sorted(INGEST_OUTCOMES));
    expect(INGEST_OUTCOMES).toEqual(expect.arrayContaining([...LEDGER_OUTCOMES, "duplicate"]));
    expect(INGEST_OUTCOMES).toHaveLength(LEDGER_OUTCOMES.length + 1);
  });

  it("the ingest's result types speak the vocabulary (checked by the type checker)", () => {
    expectTypeOf<ApplyResult["outcome"]>().toEqualTypeOf<IngestOutcome>();
    expectTypeOf<Exclude<IngestResult["outcome"], "rejected" | "unavailable">>().toEqualTypeOf<IngestOutcome>();
  });
});
