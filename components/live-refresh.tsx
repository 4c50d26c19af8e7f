"use client";
// Keeps an open page current: polls GET /live (a change token, lib/views/live/change-token.ts) and
// re-renders the page's server components only when the token moved. Polling rather than
// server-sent events: any replica behind a load balancer can answer, nothing holds a database
// connection open (LISTEN does not work through a transaction-mode PgBouncer), and a hidden tab
// costs nothing. The figures are in bench/live-updates.ts.
import { usePathname, useRouter } from "next/navigation";
import { startTransition, useEffect, useRef, useState } from "react";

export const LIVE_POLL_MS = 2_500;

function clock(date: Date): string {
  return date.toISOString().slice(11, 19);
}

export function LiveRefresh({ renderedAt, renderedToken }: { renderedAt: string; renderedToken?: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const [updatedAt, setUpdatedAt] = useState(() => new Date(renderedAt));
  const [state, setState] = useState<"live" | "offline" | "signed-out">("live");
  const initialToken = useRef(renderedToken ?? null);

  // A navigation renders fresh data: that is an update too (stamped after the commit, not
  // during it, so the navigation renders once).
  useEffect(() => {
    const stamp = setTimeout(() => setUpdatedAt(new Date()), 0);
    return () => clearTimeout(stamp);
  }, [pathname]);

  useEffect(() => {
    // The token the page was rendered with: a change committed before the first poll answers
    // differs from it. Read once per mount: later tokens come from the polls.
    let last: string | null = initialToken.current;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      if (!stopped) timer = setTimeout(tick, LIVE_POLL_MS);
    };
    async function tick() {
      if (document.visibilityState === "hidden") return schedule();
      try {
        const response = await fetch("/live", { cache: "no-store", headers: { accept: "application/json" } });
        const json =
          response.ok && !response.redirected && response.headers.get("content-type")?.includes("json")
            ? ((await response.json()) as { token?: string })
            : null;
        if (!json || typeof json.token !== "string") {
          setState(response.status === 401 || response.redirected ? "signed-out" : "offline");
        } else {
          if (last !== null && json.token !== last) {
            startTransition(() => router.refresh());
            setUpdatedAt(new Date());
          }
          last = json.token;
          setState("live");
        }
      } catch {
        setState("offline");
      }
      schedule();
    }
    const onVisible = () => {
      if (document.visibilityState === "visible") {
        clearTimeout(timer);
        void tick();
      }
    };
    document.addEventListener("visibilitychange", onVisible);
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [router]);

  const label = state === "live" ? "Live" : state === "offline" ? "Offline, retrying" : "Signed out: reload";
  return (
    <span
      data-testid="live-indicator"
      data-state={state}
      className="inline-flex items-center gap-1.5 whitespace-nowrap text-xs text-slate-600"
      title="This page updates itself when something changes"
    >
      <span
        aria-hidden
        className={`inline-block h-2 w-2 rounded-full ${state === "live" ? "bg-emerald-500" : "bg-amber-500"}`}
      />
      <span>
        {label} · updated <time dateTime={updatedAt.toISOString()}>{clock(updatedAt)} UTC</time>
      </span>
    </span>
  );
}
