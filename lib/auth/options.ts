// next-auth (v4) for human members: Credentials provider, JWT sessions, same-origin redirects only.
import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import { cookies } from "next/headers";
import CredentialsProvider from "next-auth/providers/credentials";
import { getConfig } from "@/lib/config";
import { getAuthSecret } from "@/lib/local-secrets";
import { callerKey } from "@/lib/http/client-ip";
import { verifySignIn } from "./sign-in";
import { cookieValue, deviceCookieName, deviceCookieOptions } from "./device-cookie";
import { safeReturnPath } from "./return-path";

export async function getAuthOptions(): Promise<NextAuthOptions> {
  // next-auth v4 takes its base URL from NEXTAUTH_URL, which the start set once from BASE_URL (lib/config exportNextAuthUrl).
  const { baseUrl } = getConfig();
  return {
    secret: await getAuthSecret(),
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    useSecureCookies: baseUrl.startsWith("https://"),
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const headers = new Headers();
          for (const [key, value] of Object.entries(req?.headers ?? {})) if (typeof value === "string") headers.set(key, value);
          const secure = baseUrl.startsWith("https://");
          const name = deviceCookieName(secure);
          const deviceCookie = cookieValue(headers.get("cookie") ?? undefined, name);
          const member = await verifySignIn(String(credentials?.email ?? ""), String(credentials?.password ?? ""), { callerKey: callerKey(headers), deviceCookie });
          if (!member) return null;
          // next-auth v4 runs inside our route handler (app/api/auth/[...nextauth]): Next adds cookies set here to its response.
          (await cookies()).set(name, member.deviceCookie, deviceCookieOptions(secure));
          return { id: member.id, email: member.email, name: member.name };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
      redirect({ url }) {
        return `${baseUrl}${safeReturnPath(url, baseUrl)}`;
      },
    },
  };
}

export interface MemberSession {
  memberId: string;
  email: string;
  name: string;
}

/** The signed-in member of the current request (server components and route handlers), or null. */
export async function getMemberSession(): Promise<MemberSession | null> {
  const session = await getServerSession(await getAuthOptions());
  const user = session?.user as { id?: string; email?: string | null; name?: string | null } | undefined;
  if (!user?.id || !user.email) return null;
  return { memberId: user.id, email: user.email, name: user.name ?? user.email };
}
