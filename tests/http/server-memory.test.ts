// The production entry starts Next as Next documents (it loads next.config.ts itself): what next.config.ts decides
// (its headers, its X-Powered-By) holds on the answers Next serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { startServer, type TestServer } from "../support/server";

describe("the production entry and next.config.ts", () => {
  let server: TestServer;
  beforeAll(async () => {
    // NODE_FRONT=off: every answer below comes from Next itself.
    server = await startServer({ label: "entry-memory", env: { NODE_FRONT: "off" } });
  });
  afterAll(() => server.stop());

  it("answers a page and a route handler with next.config.ts's headers", async () => {
    for (const path of ["/docs", "/.well-known/openid-configuration", "/api/v1/agent/account"]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get("x-powered-by"), path).toBeNull();
      for (const [name, value] of SECURITY_HEADERS) {
        if (name === "Content-Security-Policy" && path === "/docs") continue; // pages carry their nonce policy (security-headers.test.ts)
        expect(res.headers.get(name), `${path} ${name}`).toBe(value);
      }
    }
  });
});
