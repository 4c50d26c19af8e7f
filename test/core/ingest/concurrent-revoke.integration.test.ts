import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { keyStatuses, resetDatabase } from "../../support/state";
import { waitUntil } from "../../support/child-process";
import { deliver, keyEvent } from "../../support/webhooks";

beforeEach(resetDatabase);

// The second line of defence. Every writer of a district's keys takes the tenant lock first
// (lib/core/keys/tenant-lock.ts, test/core/keys/tenant-lock.integration.test.ts), so this race cannot happen
// through the app today; the activation's status guard in keyhook_apply_event keeps it harmless
// should a writer ever skip the lock. This test is that writer.
describe("a writer that skips the tenant lock, racing an activation of the same key", () => {
  it("never lets the activation bring the revoked key back", async () => {
    const tenant = "district-race-revoke";
    await deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_x", sequence: 1 }));

    // A revoke that updates the key row without the tenant lock. Hold that update uncommitted,
    // so the ingest reads the key as active, then waits on the key row.
    const dashboard = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([dashboard.connect(), observer.connect()]);
    try {
      await dashboard.query("BEGIN");
      await dashboard.query("UPDATE api_keys SET status = 'revoked', revoke_requested_at = now() WHERE id = 'key_x'");

      // The provider re-issues the same key under a newer sequence (an activation of key_x).
      const activation = deliver(keyEvent({ type: "key.created", tenantId: tenant, keyId: "key_x", sequence: 2 }));
      await waitUntil(async () => {
        const { rows } = await observer.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%keyhook_ingest(%'",
        );
        return rows.length > 0;
      });
      await dashboard.query("COMMIT");

      const answer = await activation;
      expect(answer.status).toBe(200);
      expect(String(answer.body.reason ?? "")).toMatch(/deactivated concurrently/);
    } finally {
      await Promise.all([dashboard.end(), observer.end()]);
    }
    expect(await keyStatuses(tenant)).toEqual({ key_x: "revoked" });
  });
});
