// Can PostgreSQL's jsonb store this body? Checked before the database, because a body it cannot
// store fails the claim transaction the same way on every retry: that is the sender's error (400
// with a receipt), never a 503 that invites retries for ever.
//
// Two cheap linear passes, no re-serialisation:
// - over the raw text, for number literals (JSON.parse turns 1e400000 into Infinity and
//   1e-400000 into 0, so only the text shows what PostgreSQL would be asked to store);
// - over the parsed value, for nesting depth and strings (a NUL character or a lone UTF-16
//   surrogate, in keys too). Working on the parsed value means an escaped backslash followed by
//   "u0000" (JSON "C:\\u0000dir") is the legal string it is, not a NUL.

/**
 * Deepest nesting a payload may have (the envelope is 1 level, `data` 2, `data.scopes` 3).
 * Far below PostgreSQL's own parser limit (a 20,000-level body fails there with 54001 "stack
 * depth limit exceeded"), and shallow enough that every later recursive step (JSON.stringify,
 * zod, rendering) is safe.
 */
export const MAX_PAYLOAD_DEPTH = 64;

/** numeric's display scale is 14 bits: at most 16,383 digits after the decimal point. */
const PG_NUMERIC_MAX_SCALE = 16_383;
/** numeric's weight is at most 32,767 base-10000 digits: 131,072 decimal digits before the point. */
const PG_NUMERIC_MAX_INTEGER_DIGITS = 131_072;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const isDigit = (c: number) => c >= ZERO && c <= NINE;

/**
 * The character offset of the first number literal PostgreSQL's numeric cannot hold, or -1.
 * `text` must already be valid JSON (JSON.parse accepted it): strings are skipped, not validated.
 * The limits are PostgreSQL's, as its numeric input applies them to the literal as written:
 * scale = digits after the point minus the exponent (trailing zeros count), and the most
 * significant non-zero digit must lie within the integer-digit limit.
 */
export function unstorableNumberOffset(text: string): number {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i);
      continue;
    }
    if (c !== MINUS && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === MINUS) i++;
    const integerStart = i;
    let firstSignificant = -1; // position of the most significant non-zero digit, relative to the point
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    const integerEnd = i;
    for (let k = integerStart; k < integerEnd; k++) {
      if (text.charCodeAt(k) !== ZERO) {
        firstSignificant = integerEnd - k;
        break;
      }
    }
    let fractionDigits = 0;
    if (i < length && text.charCodeAt(i) === DOT) {
      i++;
      const fractionStart = i;
      while (i < length && isDigit(text.charCodeAt(i))) i++;
      fractionDigits = i - fractionStart;
      if (firstSignificant === -1) {
        for (let k = fractionStart; k < i; k++) {
          if (text.charCodeAt(k) !== ZERO) {
            firstSignificant = fractionStart - k; // 0 for the first digit after the point, -1 …
            break;
          }
        }
        if (firstSignificant === -1) firstSignificant = Number.NEGATIVE_INFINITY; // the value is zero
      }
    } else if (firstSignificant === -1) {
      firstSignificant = Number.NEGATIVE_INFINITY;
    }
    let exponent = 0;
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      let sign = 1;
      const s = text.charCodeAt(i);
      if (s === MINUS || s === 0x2b) {
        if (s === MINUS) sign = -1;
        i++;
      }
      // Capped: anything past a billion is out of range either way.
      while (i < length && isDigit(text.charCodeAt(i))) {
        exponent = Math.min(exponent * 10 + (text.charCodeAt(i) - ZERO), 1e9);
        i++;
      }
      exponent *= sign;
    }
    if (fractionDigits - exponent > PG_NUMERIC_MAX_SCALE) return start;
    if (firstSignificant + exponent > PG_NUMERIC_MAX_INTEGER_DIGITS) return start;
  }
  return -1;
}

/** Index just past the closing quote of the string opening at `open`. */
function endOfString(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    for (let k = quote - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

type StorableProblem = { problem: "too_deep" | "nul" | "lone_surrogate"; path: (string | number)[] };

type Frame = { container: object; keys: string[] | null; index: number };

/**
 * The first thing in a parsed JSON value PostgreSQL's jsonb cannot store (or that is nested
 * deeper than MAX_PAYLOAD_DEPTH), with where it is; null when the value is storable.
 * Iterative, so a hostile depth cannot overflow our own stack either.
 */
export function findUnstorable(value: unknown): StorableProblem | null {
  const first = problemOfLeaf(value);
  if (first) return { problem: first, path: [] };
  if (typeof value !== "object" || value === null) return null;

  const stack: Frame[] = [frameOf(value)];
  const pathOf = () => stack.map((frame) => (frame.keys ? frame.keys[frame.index]! : frame.index));
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const container = frame.container as Record<string, unknown> & unknown[];
    const size = frame.keys ? frame.keys.length : container.length;
    if (frame.index >= size) {
      stack.pop();
      if (stack.length > 0) stack[stack.length - 1]!.index++;
      continue;
    }
    const key = frame.keys ? frame.keys[frame.index]! : null;
    if (key !== null && !isStorableString(key)) {
      return { problem: key.includes("\u0000") ? "nul" : "lone_surrogate", path: pathOf() };
    }
    const child = key !== null ? container[key] : container[frame.index];
    const leafProblem = problemOfLeaf(child);
    if (leafProblem) return { problem: leafProblem, path: pathOf() };
    if (typeof child === "object" && child !== null) {
      if (stack.length >= MAX_PAYLOAD_DEPTH) return { problem: "too_deep", path: pathOf() };
      stack.push(frameOf(child));
      continue;
    }
    frame.index++;
  }
  return null;
}

function frameOf(container: object): Frame {
  return { container, keys: Array.isArray(container) ? null : Object.keys(container), index: 0 };
}

// Numbers are not checked here: 9e131071 reads as Infinity yet PostgreSQL stores it; the raw
// text is the authority (unstorableNumberOffset), and a replayed value came out of jsonb.
function problemOfLeaf(value: unknown): StorableProblem["problem"] | null {
  if (typeof value !== "string") return null;
  if (value.includes("\u0000")) return "nul";
  if (!value.isWellFormed()) return "lone_surrogate";
  return null;
}

function isStorableString(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/** The sender-facing sentence for a problem: field names only, never a value from the body. */
export function describeUnstorable({ problem, path }: StorableProblem): string {
  // The field names themselves may hold the very character refused: shown escaped, or the
  // receipt that records this sentence could not be stored either.
  const segment = (key: string | number) => String(key).replaceAll("\u0000", "\\u0000").toWellFormed();
  const shown = path.slice(0, 8).map(segment).join(".") + (path.length > 8 ? ".…" : "");
  const at = shown ? ` at ${shown.slice(0, 200)}` : "";
  switch (problem) {
    case "too_deep":
      return `body nests deeper than ${MAX_PAYLOAD_DEPTH} levels${at}`;
    case "nul":
      return `body contains a NUL character (\\u0000)${at}, which cannot be stored`;
    case "lone_surrogate":
      return `body contains a lone UTF-16 surrogate${at}, which cannot be stored`;
  }
}
