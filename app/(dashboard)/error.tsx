"use client";
// A failure while loading a page (database down, a bug): a clear message and a retry, never a stack.
import { buttonClass } from "@/components/ui/fields";

export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-rose-300 bg-rose-50 p-6">
      <h1 className="text-lg font-semibold text-rose-900">This page could not be loaded</h1>
      <p className="mt-1 text-sm text-rose-800">
        The data behind it is unavailable right now. Nothing was changed.
        {error.digest ? ` (reference ${error.digest})` : ""}
      </p>
      <button type="button" className={`${buttonClass.secondary} mt-4`} onClick={reset}>
        Try again
      </button>
    </div>
  );
}
