// Fault injection knobs, changed at run time through PUT /_sim/faults (or PROVIDER_SIM_FAULTS at
// start). Rates are probabilities per delivery (or per API call); the draws come from a seeded
// generator so a run can be repeated with PROVIDER_SIM_SEED.
import { z } from "zod";

const rate = z.number().min(0).max(1);

export const faultsSchema = z
  .object({
    /** After a delivery, send the same event (same id) once more. */
    duplicateRate: rate.default(0),
    /** Hold a new event's first delivery back by reorderDelayMs so later events overtake it. */
    reorderRate: rate.default(0),
    reorderDelayMs: z.number().int().min(0).max(3_600_000).default(300),
    /** Extra latency before every first delivery. */
    delayMs: z.number().int().min(0).max(3_600_000).default(0),
    /** The receiver answered 2xx (and committed) but we "never got" the answer: a retry follows. */
    lostResponseRate: rate.default(0),
    /** API calls (/v1/…): answer 429 with Retry-After, at random or to the next N calls. */
    apiRateLimitRate: rate.default(0),
    apiRateLimitNext: z.number().int().min(0).default(0),
    apiRetryAfterSeconds: z.number().min(0).max(3_600).default(1),
    /** API calls: answer 503 to the next N calls. */
    apiServerErrorNext: z.number().int().min(0).default(0),
    /**
     * The next N new events are signed with a secret the receiver does not hold on their first
     * `badSignatureAttempts` scheduled attempts (it refuses them: 401), then correctly, so they
     * stay failed until the schedule's next slot or a manual redelivery (always signed right).
     */
    badSignatureNext: z.number().int().min(0).default(0),
    badSignatureAttempts: z.number().int().min(1).max(8).default(3),
  })
  .strict();

export type Faults = z.output<typeof faultsSchema>;

export const NO_FAULTS: Faults = faultsSchema.parse({});

/** mulberry32: small, fast, good enough to draw fault decisions reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
