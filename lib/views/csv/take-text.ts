// An export page's text, handed over to the stream instead of staying referenced by the async
// generator that produced it. The generator is suspended at its `yield` through the consumer's
// write, the pacing rest and the next page's query; a page text still referenced then survives
// the young generation's collections and is promoted, and old space grows by the export's byte
// rate until a major GC (docs/decisions/0012-csv-export-in-postgres.md). Taken out of its holder,
// it dies as soon as the stream has encoded it.
export function takeText(holder: { text: string | null }): string {
  const text = holder.text ?? "";
  holder.text = null;
  return text;
}
