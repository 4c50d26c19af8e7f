import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { grantPostgresUserTraversal } from "@/tooling/dev/postgres-user-access";

describe("the postgres user can reach a checkout under a private directory", () => {
  it("adds only the search bit to ancestors that lack it, and says so", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "keyhook-access-")); // mode 700, like mktemp -d
    // .data does not exist yet on a fresh clone.
    const data = path.join(root, "project", ".data", "postgres");
    mkdirSync(path.join(root, "project"), { mode: 0o755 });
    const messages: string[] = [];

    grantPostgresUserTraversal([data], (m) => messages.push(m));

    expect(statSync(root).mode & 0o777).toBe(0o701);
    expect(statSync(path.join(root, "project")).mode & 0o777).toBe(0o755);
    expect(messages.join()).toContain(root);
    messages.length = 0;
    grantPostgresUserTraversal([data], (m) => messages.push(m));
    expect(messages).toEqual([]);
  });
});
