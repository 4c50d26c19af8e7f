// Two districts with keys and events, and one signed-in actor per role, for the dashboard tests.
import { prisma } from "@/lib/core/db/client";
import type { Actor, Role } from "@/lib/core/auth/actor";
import { deliver, keyEvent } from "./webhooks";

export const OWN = "district-own";
export const OTHER = "district-other";

export type Actors = { districtAdmin: Actor; otherDistrictAdmin: Actor; support: Actor; platformAdmin: Actor };

async function user(email: string, role: Role, tenantId: string | null): Promise<Actor> {
  const row = await prisma.user.create({ data: { email, role, tenantId, name: email } });
  return { id: row.id, email, name: email, role, tenantId };
}

export async function seedTwoDistricts(): Promise<Actors> {
  for (const tenant of [OWN, OTHER]) {
    await deliver(
      keyEvent({ id: `evt_${tenant}_1`, type: "key.created", tenantId: tenant, keyId: `key_${tenant}_1`, sequence: 1 }),
    );
    await deliver(
      keyEvent({
        id: `evt_${tenant}_2`,
        type: "key.rotated",
        tenantId: tenant,
        keyId: `key_${tenant}_2`,
        previousKeyId: `key_${tenant}_1`,
        sequence: 2,
      }),
    );
  }
  // A misrouted event in each district: names the other district's key → quarantined.
  await deliver(
    keyEvent({ id: `evt_${OWN}_q`, type: "key.revoked", tenantId: OWN, keyId: `key_${OTHER}_2`, sequence: 3 }),
  );
  await deliver(
    keyEvent({ id: `evt_${OTHER}_q`, type: "key.revoked", tenantId: OTHER, keyId: `key_${OWN}_2`, sequence: 3 }),
  );
  return {
    districtAdmin: await user("admin@own.test", "district_admin", OWN),
    otherDistrictAdmin: await user("admin@other.test", "district_admin", OTHER),
    support: await user("support@keyhook.test", "support", null),
    platformAdmin: await user("platform@keyhook.test", "platform_admin", null),
  };
}

export async function ledgerIdOf(tenantId: string, eventId: string): Promise<string> {
  const row = await prisma.processedEvent.findUniqueOrThrow({ where: { tenantId_eventId: { tenantId, eventId } } });
  return String(row.id);
}
