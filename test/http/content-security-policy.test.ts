// The page policy's one allowed style attribute is exactly the one React's streaming renderer
// writes for a hidden SVG/MathML segment (react-dom/server), named by its sha256.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, REACT_HIDDEN_SEGMENT_STYLE_HASH } from "@/http/security-headers";

describe("the page policy", () => {
  it("allows React's hidden-segment style attribute by its hash, and no other", () => {
    const server = readFileSync(
      path.join(
        path.dirname(createRequire(import.meta.url).resolve("react-dom/package.json")),
        "cjs/react-dom-server.node.production.js",
      ),
      "utf8",
    );
    const style = /<svg aria-hidden="true" style="([^"]+)"/.exec(server)?.[1];
    expect(style).toBe("display:none");
    expect(REACT_HIDDEN_SEGMENT_STYLE_HASH).toBe(`'sha256-${createHash("sha256").update(style!).digest("base64")}'`);
    const policy = contentSecurityPolicy({ nonce: "n0nce", development: false, https: false });
    expect(policy).toContain(`style-src-attr 'unsafe-hashes' ${REACT_HIDDEN_SEGMENT_STYLE_HASH}`);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});
