// The reading of documented command blocks (tests/support/documented-commands.ts) that
// tests/http/documented-commands.test.ts relies on, and the docs' placeholders and not-run markers (issue 42).
import { describe, expect, it } from "vitest";
import { parseDoc, withBaseUrl } from "@/lib/docs/corpus";
import { renderMarkdown } from "@/lib/docs/render";
import { parseBlock, parseClaim, shellBlocks } from "../support/documented-commands";

describe("command blocks and their claims", () => {
  it("finds shell blocks, their not-run markers, and curl fences that are not labelled as shell", () => {
    const markdown = [
      "<!-- not-run: a Vercel step -->",
      "```sh",
      "vercel deploy",
      "```",
      "",
      "```bash",
      "curl -s $BASE/x",
      "```",
      "",
      "```",
      "curl -s $BASE/y",
      "```",
      "",
      "```json",
      "{}",
      "```",
    ].join("\n");
    const blocks = shellBlocks(markdown, "x.md");
    expect(blocks.map((b) => [b.where, b.notRun, b.unlabelled])).toEqual([
      ["x.md:2", "a Vercel step", undefined],
      ["x.md:6", undefined, undefined],
      ["x.md:10", undefined, true],
    ]);
  });

  it("reads status, members, dotted members with values, one header and an empty body", () => {
    expect(parseClaim('# 3. Poll → 400 {"error":"authorization_pending",…}; sooner → 400 slow_down')).toMatchObject({
      status: 400,
      fields: [{ name: "error", value: "authorization_pending" }],
    });
    expect(parseClaim('→ 200 {access_token, expires_in: 3600, result.task.status.state: "completed", found: true}')?.fields).toEqual([
      { name: "access_token" },
      { name: "expires_in", value: 3600 },
      { name: "result.task.status.state", value: "completed" },
      { name: "found", value: true },
    ]);
    expect(parseClaim('→ 401, WWW-Authenticate: Bearer realm="localhost", error="invalid_token"')).toMatchObject({
      status: 401,
      header: { name: "WWW-Authenticate", value: 'Bearer realm="localhost", error="invalid_token"' },
    });
    expect(parseClaim("8. Revoke → HTTP 200 with an empty body; the token is refused")).toMatchObject({ status: 200, emptyBody: true });
    expect(parseClaim("registration_id, claim_token")).toBeUndefined();
  });

  it("pairs each curl call with its claim: trailing, `# →` after, other comment lines before; heredoc bodies are data", () => {
    const block = [
      "BASE=http://localhost:3000",
      "# 1. Discover → 200 {issuer}",
      "REG=$(curl -s -X POST $BASE/a \\",
      "  -d '{\"a\":1}')",
      'echo "$REG"   # registration_id, claim_token',
      "curl -s $BASE/b   # → 404",
      "curl -s $BASE/c -d @- <<'JSON'",
      '{"text": "curl -s nothing # → 500"}',
      "JSON",
      "# → 401, WWW-Authenticate: Bearer",
      "curl -s $BASE/d",
    ].join("\n");
    expect(parseBlock(block).calls.map((c) => c?.status)).toEqual([200, 404, 401, undefined]);
  });
});

describe("the docs' placeholders and markers", () => {
  it("fills in BASE_URL and its host name", () => {
    expect(withBaseUrl('curl {{BASE_URL}}/ask realm="{{BASE_HOST}}"', "https://agents.example.net:8443")).toBe(
      'curl https://agents.example.net:8443/ask realm="agents.example.net"',
    );
  });

  it("in a private release mode, names no authorization discovery document of this server", () => {
    const source = "curl {{BASE_URL}}/.well-known/jwks.json {{BASE_URL}}/auth.md {{BASE_URL}}/ask";
    expect(withBaseUrl(source, "http://localhost:3000", false)).toBe(
      "curl https://gate.example.com/.well-known/jwks.json https://gate.example.com/auth.md http://localhost:3000/ask",
    );
    expect(withBaseUrl(source, "http://localhost:3000", true)).toBe("curl http://localhost:3000/.well-known/jwks.json http://localhost:3000/auth.md http://localhost:3000/ask");
  });

  it("leaves a not-run marker out of the HTML page, and still shows other raw HTML as text", () => {
    const doc = parseDoc(
      "x.md",
      "---\ntitle: X\nslug: x\nkind: guide\nsummary: X.\nupdated: 2026-01-01\n---\n<!-- not-run: example token -->\n```bash\ncurl -s x\n```\n\n<b>bold</b>\n",
    );
    const { html } = renderMarkdown(doc.body);
    expect(html).not.toContain("not-run");
    // Nor is it served as markdown (twins, /auth.md, get_doc read the body): issue 51.
    expect(doc.body).not.toContain("not-run");
    expect(doc.body.startsWith("```bash\ncurl -s x\n```")).toBe(true);
    expect(html).toContain("curl -s x");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt;");
  });
});
