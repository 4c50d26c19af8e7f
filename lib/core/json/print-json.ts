// JSON text of a value without recursion: JSON.stringify recurses and throws "Maximum call stack
// size exceeded" on a deeply nested value (a stored payload from before the nesting limit, or a
// row written by hand), which turned the ledger page into a 500. Here depth and size are capped:
// deeper containers print as […] / {…} and the text stops at maxChars.

type PrintJsonOptions = {
  /** Spaces per level; 0 prints compactly (the same text JSON.stringify would give). */
  indent?: number;
  /** Containers nested deeper than this print as […] or {…}. */
  maxDepth?: number;
  /** The text stops (truncated: true) once it is longer than this. */
  maxChars?: number;
};

type PrintedJson = { text: string; truncated: boolean };

type Frame = { container: object; keys: string[] | null; index: number; depth: number };

export function printJson(value: unknown, options: PrintJsonOptions = {}): PrintedJson {
  const indent = options.indent ?? 0;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  const parts: string[] = [];
  let length = 0;
  const emit = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const newline = (depth: number) => (indent > 0 ? "\n" + " ".repeat(indent * depth) : "");
  const stack: Frame[] = [];

  /** Prints a primitive, or opens a container (pushing its frame). */
  const open = (item: unknown, depth: number) => {
    if (typeof item !== "object" || item === null) {
      emit(primitive(item));
      return;
    }
    const isArray = Array.isArray(item);
    const keys = isArray ? null : Object.keys(item);
    const size = isArray ? item.length : keys!.length;
    if (size === 0) emit(isArray ? "[]" : "{}");
    else if (depth >= maxDepth) emit(isArray ? "[…]" : "{…}");
    else {
      emit(isArray ? "[" : "{");
      stack.push({ container: item, keys, index: 0, depth });
    }
  };

  open(value, 0);
  while (stack.length > 0) {
    if (length > maxChars) {
      return { text: parts.join("").slice(0, maxChars) + "\n… (truncated)", truncated: true };
    }
    const frame = stack[stack.length - 1]!;
    const container = frame.container as Record<string, unknown> & unknown[];
    const size = frame.keys ? frame.keys.length : container.length;
    if (frame.index >= size) {
      stack.pop();
      emit(newline(frame.depth) + (frame.keys ? "}" : "]"));
      continue;
    }
    const index = frame.index++;
    emit((index > 0 ? "," : "") + newline(frame.depth + 1));
    if (frame.keys) {
      const key = frame.keys[index]!;
      emit(JSON.stringify(key) + (indent > 0 ? ": " : ":"));
      open(container[key], frame.depth + 1);
    } else {
      open(container[index], frame.depth + 1);
    }
  }
  if (length > maxChars) return { text: parts.join("").slice(0, maxChars) + "\n… (truncated)", truncated: true };
  return { text: parts.join(""), truncated: false };
}

function primitive(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && !Number.isFinite(value)) return "null";
  return JSON.stringify(value) ?? "null";
}

/** UTF-8 size of a value's compact JSON text, whatever its depth. */
export function jsonByteLength(value: unknown): number {
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    text = printJson(value).text; // too deep for the native (recursive) serialiser
  }
  return Buffer.byteLength(text, "utf8");
}
