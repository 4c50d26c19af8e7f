import "server-only";
// The provider client as a page uses it: one quick attempt, no long retry loop, so an unreachable
// provider turns into a clear state on the page within seconds instead of a hung request.
import { providerClientFromEnv, type ProviderClient } from "./client";

export type DeliveryProvider = Pick<ProviderClient, "listDeliveries" | "redeliver">;

export function providerForDashboard(): DeliveryProvider {
  return providerClientFromEnv({ maxRetries: 1, timeoutMs: 4_000, maxDelayMs: 500 });
}
