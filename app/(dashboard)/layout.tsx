import { redirect } from "next/navigation";
import { Nav } from "@/components/nav";
import { currentActor } from "../_lib/session";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  // The layout only decides what to draw around the page; each page authorizes for itself.
  const actor = await currentActor();
  if (!actor) redirect("/signin");
  return (
    <>
      <Nav actor={actor} />
      <main className="mx-auto max-w-6xl px-4 py-6">{children}</main>
    </>
  );
}
