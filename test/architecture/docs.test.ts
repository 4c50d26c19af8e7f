// The documentation keeps its shape: a short README whose first commands are the two a newcomer
// runs, links that resolve (file and heading), and a settings table that names every setting.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "@/lib/core/config/env";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

const README_MAX_LINES = 150;
const FIRST_COMMANDS = ["npm run setup && npm run dev", "npm run setup && npm test"];
// Not for a person to set (as in test/core/config/env-example.test.ts).
const NOT_DOCUMENTED = new Set(["NODE_ENV", "KEYHOOK_EXIT_WITH_PARENT"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((entry) => {
    const relative = path.join(dir, entry);
    if (statSync(path.join(root, relative)).isDirectory()) return markdownFiles(relative);
    return entry.endsWith(".md") ? [relative] : [];
  });
}

/** The file's lines outside fenced code blocks (a `# comment` in a shell block is no heading). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Relative link targets outside code: `[text](target)` and `![alt](target)`. */
function relativeLinks(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, "``");
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
    }
  }
  return targets;
}

function brokenLinks(file: string, text = read(file)): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(text)) {
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = path.normalize(path.join(path.dirname(file), decodeURI(pathPart)));
    if (pathPart !== "" && (resolved.startsWith("..") || !existsSync(path.join(root, resolved)))) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    const targetText = pathPart === "" ? text : resolved.endsWith(".md") ? read(resolved) : undefined;
    if (anchor && targetText !== undefined && !anchors(targetText).has(anchor))
      broken.push(`${file}: ${target} (no such heading)`);
  }
  return broken;
}

describe("the documentation", () => {
  const documents = ["README.md", "CONTRIBUTING.md", ...markdownFiles("docs")];

  it(`README.md stays a front page of at most ${README_MAX_LINES} lines`, () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("the README's first commands are the two a newcomer runs", () => {
    const firstBlock = /^```[a-z]*\n([\s\S]*?)^```/m.exec(read("README.md"))?.[1] ?? "";
    const commands = firstBlock
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter(Boolean);
    expect(commands).toEqual(FIRST_COMMANDS);
  });

  it("every relative link in README.md, CONTRIBUTING.md and docs/ resolves to a file (and heading)", () => {
    expect(documents).toContain(path.join("docs", "design.md"));
    expect(documents.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it("the check sees a missing file, a missing heading, and no link in code or on the web", () => {
    const text = [
      "[ok](design.md#status-codes) [up](../README.md) [dir](decisions/)",
      "[gone](no-such-file.md) [wrong](design.md#no-such-heading) [here](#the-event-contract)",
      "`[code](not-a-link.md)` [web](https://example.org/x.md)",
      "```sh",
      "# not a heading [fenced](not-a-link-either.md)",
      "```",
    ].join("\n");
    expect(brokenLinks("docs/fixture.md", text)).toEqual([
      "docs/fixture.md: no-such-file.md (no such file)",
      "docs/fixture.md: design.md#no-such-heading (no such heading)",
      "docs/fixture.md: #the-event-contract (no such heading)",
    ]);
  });

  it("docs/configuration.md names every setting lib/core/config/env.ts reads", () => {
    const table = read("docs/configuration.md");
    const missing = SETTING_NAMES.filter((name) => !NOT_DOCUMENTED.has(name) && !table.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
