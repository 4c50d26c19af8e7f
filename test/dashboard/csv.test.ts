import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "@/lib/csv/csv-line";
import { CHUNK_CHARS, csvStream, READ_AHEAD_BYTES } from "@/lib/csv/csv-stream";

describe("CSV", () => {
  it("quotes separators and neutralises spreadsheet formulas", () => {
    expect(csvLine(["a", "b,c", 'say "hi"', null, 7])).toBe('a,"b,c","say ""hi""",,7\r\n');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell("-1+2")).toBe("'-1+2");
    expect(csvCell(new Date("2026-11-29T10:00:00Z"))).toBe("2026-11-29T10:00:00.000Z");
  });

  it("reads ahead a bounded number of bytes, however fast the source could go", async () => {
    const line = "x".repeat(1022) + "\r\n";
    let producedBytes = 0;
    async function* lines() {
      for (let i = 0; i < 10_000; i++) {
        producedBytes += line.length;
        yield line;
      }
    }
    const reader = csvStream(lines()).getReader();
    let readBytes = 0;
    for (let i = 0; i < 3; i++) readBytes += (await reader.read()).value!.byteLength;
    // Let the stream pull all it wants (no timing: the source never waits).
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(producedBytes).toBeGreaterThan(readBytes);
    // The queue holds up to READ_AHEAD_BYTES, plus the line being cut.
    expect(producedBytes - readBytes).toBeLessThanOrEqual(READ_AHEAD_BYTES + line.length * 2);
    await reader.cancel();
  });

  it("cuts pages into small chunks at line ends, never inside a character", async () => {
    const row = (i: number) => `${i},"caf\u00e9 \u{1F511} ${"y".repeat(i % 300)}"\r\n`;
    const page = Array.from({ length: 2_000 }, (_, i) => row(i)).join("");
    async function* pages() {
      yield page;
      yield page;
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of csvStream(pages()) as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for (const chunk of chunks) {
      const text = decoder.decode(chunk); // throws on a split character
      expect(text.endsWith("\r\n")).toBe(true);
      expect(text.length).toBeLessThanOrEqual(CHUNK_CHARS);
    }
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => decoder.decode(c)).join("")).toBe(page + page);
  });
});
