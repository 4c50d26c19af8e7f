// Structured JSON logs, one line each, so an operator can grep by event_id or tenant_id.
import { env } from "./env";

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
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
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
