// As root, the embedded PostgreSQL runs as the `postgres` user (it refuses to run as root), so
// that user must be able to traverse every directory above its binaries and data directory.
// A checkout under `mktemp -d` (mode 700) is not: initdb then fails with EACCES. We add only the
// search bit (o+x: pass through, never list or read) to the ancestors that lack it.
import { chmodSync, existsSync, statSync } from "node:fs";
import path from "node:path";

export function grantPostgresUserTraversal(targets: string[], log: (message: string) => void): void {
  const changed = new Set<string>();
  for (const target of targets) {
    for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
      // Directories not created yet will be made by us with the default 755.
      if (!existsSync(dir)) continue;
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0 && !changed.has(dir)) {
        chmodSync(dir, (mode & 0o7777) | 0o001);
        changed.add(dir);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
  if (changed.size > 0) log(`granted the postgres user search permission (o+x) on ${[...changed].join(", ")}`);
}
