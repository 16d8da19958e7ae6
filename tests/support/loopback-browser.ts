// A browser on one loopback address (node:http with a chosen local address): its cookie jar, and one credentials
// sign-in at a time through next-auth's own routes. A server started with TRUSTED_PROXY=none keys its callers by this
// address, so tests can play several clients from one machine (127.0.0.0/8 is all loopback on Linux).
import http from "node:http";

export interface Exchange {
  status: number;
  setCookies: string[];
  body: string;
}

/** node:http from a chosen loopback address (the server, TRUSTED_PROXY=none, keys its callers by this address). */
export function exchange(port: number, localAddress: string, method: string, path: string, cookies: string[], body?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Cookie: cookies.join("; ") };
    if (body !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const req = http.request({ host: "127.0.0.1", port, method, path, localAddress, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, setCookies: res.headers["set-cookie"] ?? [], body: text });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer to ${method} ${path} within 30 s`)), 30_000);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

/** A browser on one loopback address: its cookie jar, and one credentials sign-in at a time. */
export class LoopbackBrowser {
  readonly jar = new Map<string, string>();
  constructor(
    private readonly port: number,
    private readonly address: string,
  ) {}

  private keep(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }

  private cookies(): string[] {
    return [...this.jar].map(([name, value]) => `${name}=${value}`);
  }

  /** True when the sign-in set a session cookie; the Set-Cookie lines of the callback. */
  async signIn(email: string, password: string): Promise<{ signedIn: boolean; setCookies: string[] }> {
    this.jar.delete("next-auth.session-token");
    const csrf = await exchange(this.port, this.address, "GET", "/api/auth/csrf", this.cookies());
    this.keep(csrf.setCookies);
    const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
    const body = new URLSearchParams({ csrfToken, email, password, json: "true" }).toString();
    const res = await exchange(this.port, this.address, "POST", "/api/auth/callback/credentials", this.cookies(), body);
    this.keep(res.setCookies);
    return { signedIn: res.setCookies.some((c) => c.startsWith("next-auth.session-token=")), setCookies: res.setCookies };
  }
}
