import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startServer, type TestServer } from "../support/server";

const base = inject("baseUrl");

interface SkillsIndex {
  $schema: string;
  skills: { name: string; type: string; description: string; url: string; digest: string }[];
}

describe("agent-skills index (draft 0.2.0)", () => {
  it("lists the skills with absolute URLs on this service and correct sha256 digests", async () => {
    const res = await fetch(`${base}/.well-known/agent-skills/index.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const index = (await res.json()) as SkillsIndex;
    expect(index.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    expect(index.skills.map((s) => s.name).sort()).toEqual(["ask-the-docs", "delegated-account-access", "look-up-members", "verify-certificates"]);
    for (const skill of index.skills) {
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.name.length).toBeLessThanOrEqual(64);
      expect(skill.description.length).toBeGreaterThan(20);
      expect(skill.description.length).toBeLessThanOrEqual(1024);
      expect(skill.type).toBe("skill-md");
      expect(skill.url).toBe(`${base}/.well-known/agent-skills/${skill.name}/SKILL.md`);
      const doc = await fetch(skill.url);
      expect(doc.status).toBe(200);
      expect(doc.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      const bytes = Buffer.from(await doc.arrayBuffer());
      expect(skill.digest).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
      const text = bytes.toString("utf8");
      expect(text).toMatch(new RegExp(`^---\\nname: ${skill.name}\\ndescription: `));
      expect(text).not.toContain("{base}");
    }
  });

  it("answers the JSON 404 for an unknown skill", async () => {
    const res = await fetch(`${base}/.well-known/agent-skills/nope/SKILL.md`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe("not_found");
  });
});

interface Linkset {
  linkset: ({ anchor: string } & Record<string, { href: string; type?: string }[] | string>)[];
}

describe("api-catalog (RFC 9727)", () => {
  it("is a linkset with the RFC 9727 profile, CORS open, linking every API", async () => {
    const res = await fetch(`${base}/.well-known/api-catalog`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const { linkset } = (await res.json()) as Linkset;
    const anchors = linkset.map((c) => c.anchor);
    expect(anchors).toEqual([`${base}/.well-known/api-catalog`, `${base}/api`, `${base}/mcp`, `${base}/mcp/docs`, `${base}/a2a`]);
    const api = linkset.find((c) => c.anchor === `${base}/api`)!;
    expect(api["service-desc"]).toEqual([expect.objectContaining({ href: `${base}/openapi.json`, type: "application/vnd.oai.openapi+json;version=3.1" })]);
    expect(api["service-meta"]).toContainEqual(expect.objectContaining({ href: `${base}/.well-known/oauth-protected-resource/api` }));
  });

  it("the home page's Link header points to it", async () => {
    const res = await fetch(`${base}/`);
    expect(res.headers.get("link")).toContain(`<${base}/.well-known/api-catalog>; rel="api-catalog"`);
  });

  it("answers HEAD with the Link header and no body", async () => {
    const res = await fetch(`${base}/.well-known/api-catalog`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("link")).toBe(`<${base}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(await res.text()).toBe("");
  });
});

describe("private release mode hides authorization links from catalogs", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { RELEASE_MODE: "private" }, label: "private-catalogs" });
  });
  afterAll(() => server.stop());

  it("the skills index omits the delegation skill, and its document is gone", async () => {
    const index = (await (await fetch(`${server.baseUrl}/.well-known/agent-skills/index.json`)).json()) as SkillsIndex;
    expect(index.skills.map((s) => s.name)).not.toContain("delegated-account-access");
    expect((await fetch(`${server.baseUrl}/.well-known/agent-skills/delegated-account-access/SKILL.md`)).status).toBe(404);
  });

  it("the api-catalog has no authorization metadata links", async () => {
    const text = await (await fetch(`${server.baseUrl}/.well-known/api-catalog`)).text();
    expect(text).not.toMatch(/oauth|auth\.md|jwks/);
  });
});
