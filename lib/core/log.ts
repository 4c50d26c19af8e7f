// Structured JSON logs, one line each, so an operator can grep by event_id or tenant_id. Each
// line names its process (`pid`): with WEB_CONCURRENCY > 1 several servers write to one stream.
import { env } from "./config/env";

type Level = "debug" | "info" | "warn" | "error";
const rank: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  let threshold: Level | "silent" = "info";
  try {
    threshold = env().LOG_LEVEL;
  } catch {
    // An invalid environment is reported by whoever reads it first; logging must still work.
  }
  if (rank[level] < rank[threshold]) return;
  // The fixed part is written as text and only the fields go through JSON.stringify: one
  // serialisation per line, no merged copy of `fields` (this runs for every delivery).
  const head = `{"time":"${new Date().toISOString()}","level":"${level}","pid":${process.pid},"msg":${JSON.stringify(message)}`;
  const rest = fields ? JSON.stringify(fields) : "{}";
  const line = rest.length > 2 ? `${head},${rest.slice(1)}\n` : `${head}}\n`;
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};

/** A one-line description of an unknown failure, without a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${code ? ` ${String(code)}` : ""}: ${error.message.split("\n").filter(Boolean).slice(-1)[0] ?? ""}`.slice(
      0,
      500,
    );
  }
  return String(error).slice(0, 500);
}
