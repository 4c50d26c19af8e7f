"use client";
import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/** False in the server's HTML and until hydration, true once the component's script runs. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
