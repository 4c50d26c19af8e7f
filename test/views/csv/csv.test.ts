import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "@/lib/views/csv/csv-line";
import { csvStream } from "@/lib/views/csv/csv-stream";

describe("CSV", () => {
  it("quotes separators and neutralises spreadsheet formulas", () => {
    expect(csvLine(["a", "b,c", 'say "hi"', null, 7])).toBe('a,"b,c","say ""hi""",,7\r\n');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell("-1+2")).toBe("'-1+2");
    expect(csvCell(new Date("2026-11-29T10:00:00Z"))).toBe("2026-11-29T10:00:00.000Z");
  });

  it("pulls lines only as the reader asks for them", async () => {
    let produced = 0;
    async function* lines() {
      for (let i = 0; i < 1000; i++) {
        produced++;
        yield `${i}\r\n`;
      }
    }
    const reader = csvStream(lines()).getReader();
    await reader.read();
    await reader.read();
    expect(produced).toBeLessThan(5);
    await reader.cancel();
  });
});
