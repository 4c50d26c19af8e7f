// docs/layout.md is the one description of the tree: every top-level folder, every area of lib/
// (each ring's folders and its top files) and every docs page is named there, so the page cannot
// fall behind the tree unnoticed.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const layout = readFileSync(path.join(root, "docs", "layout.md"), "utf8");
const IGNORED = new Set(["node_modules", ".git", ".next", ".data", "generated"]);

function entries(dir: string): string[] {
  return readdirSync(path.join(root, dir)).filter((entry) => !IGNORED.has(entry) && !entry.startsWith("."));
}

const isDir = (relative: string) => statSync(path.join(root, relative)).isDirectory();

export function missingFrom(text: string, names: string[]): string[] {
  return names.filter((name) => !text.includes(name));
}

describe("docs/layout.md names the tree", () => {
  it("every top-level folder", () => {
    const folders = entries(".")
      .filter(isDir)
      .map((folder) => `${folder}/`);
    expect(missingFrom(layout, folders)).toEqual([]);
  });

  it("every area of each ring of lib/, and the files at a ring's top", () => {
    const areas = entries("lib").flatMap((ring) =>
      entries(path.join("lib", ring)).map((entry) => (isDir(path.join("lib", ring, entry)) ? `${entry}/` : entry)),
    );
    expect(areas.length).toBeGreaterThan(30);
    const ringSection = (ring: string) => layout.split(`**\`lib/${ring}/\`**`)[1]?.split("**`lib/")[0] ?? "";
    const missing = entries("lib").flatMap((ring) =>
      missingFrom(
        ringSection(ring),
        entries(path.join("lib", ring)).map((entry) =>
          isDir(path.join("lib", ring, entry)) ? `\`${entry}/\`` : `\`${entry}\``,
        ),
      ).map((name) => `lib/${ring}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("every page of docs/", () => {
    const pages = entries("docs").filter((entry) => entry.endsWith(".md") && entry !== "layout.md");
    expect(
      missingFrom(
        layout,
        pages.map((page) => `(${page})`),
      ),
    ).toEqual([]);
  });

  it("the check sees what is missing", () => {
    expect(missingFrom("`app/` `lib/`", ["app/", "lib/", "http/"])).toEqual(["http/"]);
  });
});
