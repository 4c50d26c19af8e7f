// Rotated and revoked are terminal in the database itself (the api_keys_terminal_status trigger),
// like "one active key": a writer that skips the tenant lock, the services or the ingest
// function — a script, a hand-typed UPDATE — still cannot bring a dead key back.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { KEY_STATUSES } from "@/lib/core/vocabulary";
import { resetDatabase } from "../../support/state";

const TENANT = "district-terminal";

async function keyWithStatus(id: string, status: string): Promise<void> {
  await prisma.apiKey.create({ data: { id, tenantId: TENANT, status } });
}

const setStatus = (id: string, status: string) =>
  prisma.$executeRawUnsafe(`UPDATE api_keys SET status = $1 WHERE id = $2`, status, id);

beforeEach(async () => {
  await resetDatabase();
  await prisma.tenant.create({ data: { id: TENANT } });
});

describe("terminal key statuses, enforced by PostgreSQL", () => {
  it("a direct UPDATE reviving a revoked key fails, and the key stays revoked", async () => {
    await keyWithStatus("key_revoked", "revoked");
    await expect(setStatus("key_revoked", "active")).rejects.toThrow(
      /api key key_revoked is revoked: it cannot become active \(rotated and revoked are terminal\)/,
    );
    for (const status of KEY_STATUSES.filter((s) => s !== "revoked")) {
      await expect(setStatus("key_revoked", status), status).rejects.toThrow(/terminal/);
    }
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_revoked" } })).status).toBe("revoked");
  });

  it("a rotated key never becomes live again; it may still be revoked (revoked outranks rotated)", async () => {
    await keyWithStatus("key_rotated", "rotated");
    await expect(setStatus("key_rotated", "active")).rejects.toThrow(/terminal/);
    await expect(setStatus("key_rotated", "superseded")).rejects.toThrow(/terminal/);
    await expect(prisma.apiKey.update({ where: { id: "key_rotated" }, data: { status: "active" } })).rejects.toThrow(
      /terminal/,
    );
    expect(await setStatus("key_rotated", "revoked")).toBe(1);
  });

  it("live keys change freely, and a terminal key's other columns may still be written", async () => {
    await keyWithStatus("key_live", "active");
    expect(await setStatus("key_live", "superseded")).toBe(1);
    expect(await setStatus("key_live", "active")).toBe(1);
    expect(await setStatus("key_live", "rotated")).toBe(1);
    // What the ingest does when a key's activation arrives after its deactivation: facts, not status.
    await prisma.apiKey.update({ where: { id: "key_live" }, data: { prefix: "kh_live", status: "rotated" } });
    expect(await prisma.apiKey.findUniqueOrThrow({ where: { id: "key_live" } })).toMatchObject({
      status: "rotated",
      prefix: "kh_live",
    });
  });
});
