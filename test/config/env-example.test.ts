// .env.example documents every setting lib/env.ts reads, and nothing it does not.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "@/lib/env";

// Not for a person to set: NODE_ENV comes from `npm run dev` / `npm start`, and the launcher sets
// KEYHOOK_EXIT_WITH_PARENT for the processes it starts.
const NOT_DOCUMENTED = new Set(["NODE_ENV", "KEYHOOK_EXIT_WITH_PARENT"]);

const example = readFileSync(path.resolve(import.meta.dirname, "../../.env.example"), "utf8");
const documented = [...example.matchAll(/^# ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);

describe(".env.example", () => {
  it("lists every setting once, and only settings lib/env.ts reads", () => {
    expect([...documented].sort()).toEqual(SETTING_NAMES.filter((name) => !NOT_DOCUMENTED.has(name)).sort());
  });
});
