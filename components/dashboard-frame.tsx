// What surrounds every signed-in page: the navigation (with the live indicator) and the region
// where an action's answer lands when its form is gone. The dashboard layout draws it, and so
// does the not-found page for a signed-in user, who keeps their way around.
import type { Actor } from "@/lib/core/auth/actor";
import { ActionResults } from "./action-results";
import { Nav } from "./nav";

export function DashboardFrame({
  actor,
  renderedToken,
  children,
}: {
  actor: Actor;
  /** The change token as of this render (the dashboard layout); without it the first poll sets it. */
  renderedToken?: string;
  children: React.ReactNode;
}) {
  return (
    <ActionResults>
      <Nav actor={actor} renderedAt={new Date().toISOString()} renderedToken={renderedToken} />
      {/* Bottom padding: an action's answer may float over the last rows. */}
      <main className="mx-auto max-w-6xl px-4 pb-24 pt-6">{children}</main>
    </ActionResults>
  );
}
