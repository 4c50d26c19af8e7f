"use client";
// A failure while loading a page (database down, a failover in progress, a bug): a clear message
// and a retry, never a stack. Used by the dashboard's error boundary and by the app's own, which
// catches what the dashboard layout itself throws (it loads the signed-in user).
import { useRouter } from "next/navigation";
import { startTransition } from "react";
import { buttonClass } from "@/components/ui/fields";

export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const router = useRouter();
  // reset() alone re-renders what the client has; the refresh asks the server again.
  const retry = () =>
    startTransition(() => {
      router.refresh();
      reset();
    });
  return (
    <div role="alert" className="rounded-lg border border-rose-300 bg-rose-50 p-6">
      <h1 className="text-lg font-semibold text-rose-900">This page could not be loaded</h1>
      <p className="mt-1 text-sm text-rose-800">
        The data behind it is unavailable right now. Nothing was changed.
        {error.digest ? ` (reference ${error.digest})` : ""}
      </p>
      <button type="button" className={`${buttonClass.secondary} mt-4`} onClick={retry}>
        Try again
      </button>
    </div>
  );
}
