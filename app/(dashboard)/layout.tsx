import { redirect } from "next/navigation";
import { DashboardFrame } from "@/components/dashboard-frame";
import { changeToken } from "@/lib/views/live/change-token";
import { currentActor } from "../_lib/session";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  // The layout only decides what to draw around the page; each page authorizes for itself.
  const actor = await currentActor();
  if (!actor) redirect("/signin");
  // The live indicator's first poll compares with this render's token, so a change committed
  // between the render and that poll still refreshes the page (it used to become the baseline).
  const renderedToken = await changeToken({ actor });
  return (
    <DashboardFrame actor={actor} renderedToken={renderedToken}>
      {children}
    </DashboardFrame>
  );
}
