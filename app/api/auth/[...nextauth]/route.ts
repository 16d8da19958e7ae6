import NextAuth from "next-auth";
import { getAuthOptions } from "@/lib/auth/options";
import { route, refuseOtherMethods } from "@/lib/routes/handlers";

type Context = { params: Promise<{ nextauth: string[] }> };

const handler = route<{ nextauth: string[] }>(async (request: Request, context: Context) => {
  const nextAuth = NextAuth as unknown as (req: Request, ctx: Context, options: Awaited<ReturnType<typeof getAuthOptions>>) => Promise<Response>;
  return nextAuth(request, context, await getAuthOptions());
});

export { handler as GET, handler as POST };
export const { PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD", "POST"]);
