import { redirect } from "next/navigation";
import { currentActor } from "./_lib/session";

export const dynamic = "force-dynamic";

export default async function Home() {
  redirect((await currentActor()) ? "/overview" : "/signin");
}
