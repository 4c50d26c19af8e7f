import { DashboardFrame } from "@/components/dashboard-frame";
import { NotFoundNotice } from "@/components/not-found-notice";
import { currentActor } from "./_lib/session";

// An unknown address. Signed in, the page keeps the navigation, so the way back is where it
// always is; signed out, the notice alone (nothing about the dashboard is shown).
export default async function NotFound() {
  const actor = await currentActor();
  if (actor)
    return (
      <DashboardFrame actor={actor}>
        <NotFoundNotice />
      </DashboardFrame>
    );
  return (
    <main className="mx-auto max-w-6xl px-4 pt-6">
      <NotFoundNotice />
    </main>
  );
}
