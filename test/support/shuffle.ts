// A seeded shuffle (in place), so a property test's arbitrary decides the delivery order.
export function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed || 1;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
