// The script behind a package's command (`next`, `prisma`), found the documented way: the `bin`
// entry of the package's package.json (what npm links into node_modules/.bin), not a path into
// the package's private folders.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export function packageBin(name: string): string {
  const manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
  const script = typeof bin === "string" ? bin : bin?.[name];
  if (!script) throw new Error(`${manifest} declares no "${name}" command`);
  return path.join(path.dirname(manifest), script);
}
