"use client";
// A failure while loading a page (database down, a failover in progress, a server too busy to get
// a connection in time, a bug): a clear message and a retry, never a stack. Used by the
// dashboard's error boundary and by the app's own, which catches what the dashboard layout itself
// throws (it loads the signed-in user). Most such failures pass within seconds (a busy moment, a
// failover), so the page tries once more by itself, saying so, before it asks the person to.
import { usePathname, useRouter } from "next/navigation";
import { startTransition, useCallback, useEffect, useState } from "react";
import { buttonClass } from "@/components/ui/fields";

/** One automatic retry per page per this long: a page that keeps failing waits for the person. */
const AUTO_RETRY_WINDOW_MS = 30_000;
const AUTO_RETRY_AFTER_MS = 1_500;
const autoRetriedAt = new Map<string, number>();

export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const router = useRouter();
  const pathname = usePathname();
  const [retrying, setRetrying] = useState(false);
  // reset() alone re-renders what the client has; the refresh asks the server again.
  const retry = useCallback(
    () =>
      startTransition(() => {
        router.refresh();
        reset();
      }),
    [router, reset],
  );
  useEffect(() => {
    const last = autoRetriedAt.get(pathname) ?? 0;
    if (Date.now() - last < AUTO_RETRY_WINDOW_MS) return;
    autoRetriedAt.set(pathname, Date.now());
    const start = setTimeout(() => setRetrying(true), 0);
    const timer = setTimeout(retry, AUTO_RETRY_AFTER_MS);
    // Still here long after the retry: it failed too; the button is back.
    const giveUp = setTimeout(() => setRetrying(false), AUTO_RETRY_AFTER_MS + 10_000);
    return () => {
      clearTimeout(start);
      clearTimeout(timer);
      clearTimeout(giveUp);
    };
  }, [pathname, retry]);
  return (
    <div role="alert" className="rounded-lg border border-rose-300 bg-rose-50 p-6">
      <h1 className="text-lg font-semibold text-rose-900">This page could not be loaded</h1>
      <p className="mt-1 text-sm text-rose-800">
        The server or its database did not answer in time: it may be busy or restarting. Nothing was changed.
        {error.digest ? ` (reference ${error.digest})` : ""}
      </p>
      {retrying ? (
        <p className="mt-4 text-sm text-rose-900" data-testid="page-error-retrying">
          Trying again…
        </p>
      ) : (
        <button type="button" className={`${buttonClass.secondary} mt-4`} onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
