// The production build's own list of server actions (.next/server/server-reference-manifest.json)
// against the source: every action the build can run comes from an app/**/actions.ts and is
// declared through action() with a permission (app/_lib/run-action.ts), and every declared action
// is in the build (so the manifest is read right). In test:deploy, which builds first: CI runs it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { declarationOf } from "@/app/_lib/run-action";
import { PERMISSIONS } from "@/lib/core/auth/permissions";
import { actionFiles, repositoryRoot as root } from "../support/action-files";

// Outside a Next request there is no cache to revalidate.
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

type ManifestEntry = { filename?: string; exportedName?: string };
const manifestPath = path.join(root, ".next", "server", "server-reference-manifest.json");

describe("the build's server actions", () => {
  it("each is declared with a permission in an actions.ts, and each declared one is built", async () => {
    expect(existsSync(manifestPath), `${manifestPath} is missing: npm run test:deploy builds first`).toBe(true);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      node: Record<string, ManifestEntry>;
      edge: Record<string, ManifestEntry>;
    };
    const built = [...Object.values(manifest.node), ...Object.values(manifest.edge)].map(
      (entry) => `${entry.filename}#${entry.exportedName}`,
    );
    const relative = actionFiles().map((file) => path.relative(root, file));
    const declared: string[] = [];
    for (const file of relative) {
      const mod = (await import(path.join(root, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        const declaration = declarationOf(value);
        expect(declaration, `${file}#${name} is not declared through action()`).toBeDefined();
        expect(Object.keys(PERMISSIONS), `${file}#${name}`).toContain(declaration!.permission);
        declared.push(`${file}#${name}`);
      }
    }
    expect(built.length).toBeGreaterThan(0);
    // An action in the build that no actions.ts declares ran past the wrapper's permission check.
    expect([...new Set(built)].sort()).toEqual(declared.sort());
  });
});
