import { redirect } from "next/navigation";
import { ActionResults } from "@/components/action-results";
import { Nav } from "@/components/nav";
import { currentActor } from "../_lib/session";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  // The layout only decides what to draw around the page; each page authorizes for itself.
  const actor = await currentActor();
  if (!actor) redirect("/signin");
  return (
    <ActionResults>
      <Nav actor={actor} renderedAt={new Date().toISOString()} />
      {/* Bottom padding: the action-result messages float over the last rows. */}
      <main className="mx-auto max-w-6xl px-4 pb-24 pt-6">{children}</main>
    </ActionResults>
  );
}
