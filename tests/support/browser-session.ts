// A member's next-auth session cookie obtained over HTTP (for tests that post forms without a browser).
import { DEMO_PASSWORD } from "../../lib/demo/data";

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

/** Signs in with the Credentials provider and returns the Cookie header value of the session. */
export async function sessionCookie(baseUrl: string, email: string, password: string = DEMO_PASSWORD): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesOf(csrf);
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  });
  await res.arrayBuffer();
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token=") || c.startsWith("__Secure-next-auth.session-token="));
  if (!session) throw new Error(`sign-in as ${email} failed (HTTP ${res.status})`);
  return [...jar, session].join("; ");
}
