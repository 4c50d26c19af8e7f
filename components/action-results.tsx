"use client";
// An action's result lands here, in a region fixed to the bottom of the screen, only when the form
// that asked is gone before its answer could be read there (the re-render it caused removed it,
// or the person navigated away): an answer shown next to its form is not repeated over the
// content. It lives in the dashboard layout, so it survives refreshes and navigations; a success
// leaves by itself after a few seconds, an error stays until dismissed.
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";

type ReportedResult = { ok: boolean; message: string; at: number };

const ResultsContext = createContext<(result: ReportedResult) => void>(() => {});

export function useReportResult(): (result: ReportedResult) => void {
  return useContext(ResultsContext);
}

const MAX_SHOWN = 3;
const SUCCESS_SHOWN_MS = 8_000;

export function ActionResults({ children }: { children: React.ReactNode }) {
  const [results, setResults] = useState<ReportedResult[]>([]);
  const report = useCallback((result: ReportedResult) => {
    setResults((current) =>
      current.some((r) => r.at === result.at && r.message === result.message)
        ? current
        : [result, ...current].slice(0, MAX_SHOWN),
    );
  }, []);
  const dismiss = useCallback(
    (result: ReportedResult) => setResults((current) => current.filter((r) => r !== result)),
    [],
  );
  useEffect(() => {
    const timers = results.filter((r) => r.ok).map((r) => setTimeout(() => dismiss(r), SUCCESS_SHOWN_MS));
    return () => timers.forEach(clearTimeout);
  }, [results, dismiss]);
  const value = useMemo(() => report, [report]);
  return (
    <ResultsContext.Provider value={value}>
      {children}
      <div
        aria-live="polite"
        className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-3 sm:items-end"
      >
        {results.map((result) => (
          <div
            key={`${result.at}-${result.message}`}
            role="status"
            data-testid="action-result"
            data-result={result.ok ? "ok" : "error"}
            className={`pointer-events-auto flex w-full max-w-md items-start gap-3 rounded-md border p-3 text-sm shadow-lg ${result.ok ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-rose-300 bg-rose-50 text-rose-900"}`}
          >
            <p className="min-w-0 flex-1 break-words">{result.message}</p>
            <button
              type="button"
              className="shrink-0 rounded px-2 text-slate-700 hover:bg-white/60"
              aria-label="Dismiss this message"
              onClick={() => dismiss(result)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ResultsContext.Provider>
  );
}
