// Every server action is declared through the wrapper with a permission, and every
// denial, by role or by the data layer's tenant scope, is audited with actor, action and target.
// The build's own list of actions is checked against these files by test/deploy/server-actions.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { declarationOf, executeAction } from "@/app/_lib/run-action";
import { PERMISSIONS } from "@/lib/core/auth/permissions";
import { prisma } from "@/lib/core/db/client";
import { actionFiles } from "../support/action-files";
import { resetDatabase } from "../support/state";
import { OTHER, OWN, seedTwoDistricts, type Actors } from "../support/dashboard-fixtures";

// Outside a Next request there is no cache to revalidate; everything else runs for real.
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const root = path.resolve(import.meta.dirname, "../..");

/** Files that say "use server" at the top: every one of them must be an actions.ts. */
function serverActionModules(dir = path.join(root, "app")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return serverActionModules(full);
    return /\.tsx?$/.test(entry.name) && /^\s*["']use server["']/.test(readFileSync(full, "utf8")) ? [full] : [];
  });
}

describe("every server action declares its permission", () => {
  const files = actionFiles();

  it("finds the action files, and no other file is a server-action module", () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
    expect(serverActionModules().sort()).toEqual([...files].sort());
  });

  it.each(files.map((f) => [path.relative(root, f), f]))(
    "%s: each export is action(permission, schema, handler)",
    async (_name, file) => {
      const source = readFileSync(file, "utf8");
      // A plain `export async function` would be a server action the wrapper never saw.
      expect(source).not.toMatch(/export\s+(async\s+)?function|export\s+default|export\s*\{/);
      const mod = (await import(file)) as Record<string, unknown>;
      const exported = Object.entries(mod);
      expect(exported.length).toBeGreaterThan(0);
      for (const [name, value] of exported) {
        const declaration = declarationOf(value);
        expect(declaration, `${name} is not declared through action()`).toBeDefined();
        expect(Object.keys(PERMISSIONS), name).toContain(declaration!.permission);
      }
    },
  );
});

describe("the wrapper", () => {
  let actors: Actors;
  beforeEach(async () => {
    await resetDatabase();
    actors = await seedTwoDistricts();
  });

  const form = (values: Record<string, string>) => {
    const data = new FormData();
    for (const [k, v] of Object.entries(values)) data.set(k, v);
    return data;
  };

  async function revokeDeclaration() {
    const mod = await import("@/app/(dashboard)/districts/[tenantId]/actions");
    return declarationOf(mod.revokeKeyAction)!;
  }

  it("audits a district admin's attempt to revoke another district's key, with actor, action and target", async () => {
    const result = await executeAction(
      await revokeDeclaration(),
      actors.districtAdmin,
      form({ keyId: `key_${OTHER}_2` }),
    );
    expect(result).toMatchObject({ ok: false, message: "Not found (or not yours to change)." });
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${OTHER}_2` } })).status).toBe("active");
    const rows = await prisma.auditLog.findMany({ where: { outcome: "denied" } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorId: actors.districtAdmin.id,
      actor: "admin@own.test (district_admin)",
      action: "key.revoke",
      target: `key_${OTHER}_2`,
      tenantId: OWN,
    });
  });

  it("audits a role without the permission before running anything", async () => {
    const result = await executeAction(await revokeDeclaration(), actors.support, form({ keyId: `key_${OWN}_2` }));
    expect(result.ok).toBe(false);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${OWN}_2` } })).status).toBe("active");
    expect(await prisma.auditLog.findFirstOrThrow({ where: { outcome: "denied" } })).toMatchObject({
      actorId: actors.support.id,
      action: "key.revoke",
      target: `key_${OWN}_2`,
      details: { reason: "permission" },
    });
    const users = await import("@/app/(dashboard)/users/actions");
    const denied = await executeAction(
      declarationOf(users.disableUserAction)!,
      actors.districtAdmin,
      form({ userId: actors.platformAdmin.id }),
    );
    expect(denied.ok).toBe(false);
    expect(await prisma.user.findUniqueOrThrow({ where: { id: actors.platformAdmin.id } })).toMatchObject({
      disabledAt: null,
    });
    expect(
      await prisma.auditLog.count({
        where: { outcome: "denied", action: "users.manage", target: actors.platformAdmin.id },
      }),
    ).toBe(1);
  });

  it("runs the handler for an allowed actor, and refuses without a session", async () => {
    const declaration = await revokeDeclaration();
    expect(await executeAction(declaration, null, form({ keyId: `key_${OWN}_2` }))).toMatchObject({
      ok: false,
      message: "Your session has ended. Sign in again.",
    });
    expect(await executeAction(declaration, actors.districtAdmin, form({ keyId: `key_${OWN}_2` }))).toMatchObject({
      ok: true,
      message: `Revoked key_${OWN}_2 here and sent the revoke to the provider.`,
    });
    expect(await prisma.auditLog.count({ where: { outcome: "denied" } })).toBe(0);
  });

  it("refuses an over-long field under that field, never cuts it and sends the rest on", async () => {
    const mod = await import("@/app/(dashboard)/districts/[tenantId]/actions");
    await prisma.tenant.create({ data: { id: "district-keyless" } });
    // 2,000 characters of real scopes and then some: cut at 2,000 it would end mid-scope.
    const scopes = Array.from({ length: 170 }, (_, i) => `rosters:read${i}`).join(" ");
    expect(scopes.length).toBeGreaterThan(2000);
    const answer = await executeAction(
      declarationOf(mod.issueKeyAction)!,
      actors.platformAdmin,
      form({ tenantId: "district-keyless", scopes, requestToken: "tok_overlong_1" }),
    );
    expect(answer).toMatchObject({
      ok: false,
      field: "scopes",
      message: `Too long: at most 2,000 characters (this has ${scopes.length.toLocaleString("en-US")}). Shorten it and try again.`,
    });
    expect(await prisma.outboxMessage.count()).toBe(0);
    expect(await prisma.auditLog.count({ where: { action: "key.issue" } })).toBe(0);
  });

  it("shows a handler's bad-news answer as an error, not as a success", async () => {
    const declaration = {
      permission: "readiness.run" as const,
      schema: z.object({}),
      handler: async () => ({ ok: false, message: "Not ready for retries: 1 of 4 steps failed (run 1)." }),
    };
    expect(await executeAction(declaration, actors.platformAdmin, form({}))).toMatchObject({
      ok: false,
      message: "Not ready for retries: 1 of 4 steps failed (run 1).",
    });
  });
});
