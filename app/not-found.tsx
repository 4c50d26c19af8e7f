import { connection } from "next/server";
import { DashboardFrame } from "@/components/dashboard-frame";
import { NotFoundNotice } from "@/components/not-found-notice";
import { currentActor } from "./_lib/session";

// An unknown address. Signed in, the page keeps the navigation, so the way back is where it
// always is; signed out, the notice alone (nothing about the dashboard is shown).
export default async function NotFound() {
  // Rendered per request (who is asking decides the frame), never prerendered at build time.
  await connection();
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
