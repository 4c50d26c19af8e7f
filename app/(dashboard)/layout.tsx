import { redirect } from "next/navigation";
import { DashboardFrame } from "@/components/dashboard-frame";
import { currentActor } from "../_lib/session";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  // The layout only decides what to draw around the page; each page authorizes for itself.
  const actor = await currentActor();
  if (!actor) redirect("/signin");
  return <DashboardFrame actor={actor}>{children}</DashboardFrame>;
}
