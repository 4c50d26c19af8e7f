// Names for prepared statements, one per distinct SQL text. Bounded: a query whose text varies
// (an IN list of changing length, say) must not grow the map, or every connection's set of
// prepared statements on the server, without limit; past the bound statements stay unnamed
// (an empty name is pg's unnamed statement: parsed each time, as without this).
export function preparedStatementNames(limit = 500): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= limit) return "";
    const name = `keyhook_${names.size}`;
    names.set(sql, name);
    return name;
  };
}
