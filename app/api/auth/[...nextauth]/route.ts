import NextAuth from "next-auth";
import { authOptions } from "@/auth";

type Context = { params: Promise<{ nextauth: string[] }> };

function handler(request: Request, context: Context) {
  return NextAuth(request as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
