// Docs pages, markdown twins (`.md` and Accept: text/markdown), /auth.md and /sitemap.xml.
import { describe, expect, inject, it } from "vitest";
import { getCorpus } from "@/lib/docs/corpus";

const base = inject("baseUrl");
const slugs = getCorpus().docs.map((d) => d.slug);
const PAGES = ["/", "/login", "/account", "/docs", "/map", ...slugs.map((s) => `/docs/${s}`)];
const twin = (page: string) => (page === "/" ? "/index.md" : `${page}.md`);

describe("docs pages (HTML)", () => {
  it("/docs lists every document grouped by kind, with summaries", async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    for (const heading of ["Guides", "Reference", "Policies"]) expect(html).toContain(`>${heading}</h2>`);
    for (const doc of getCorpus().docs) {
      expect(html).toContain(`href="/docs/${doc.slug}"`);
    }
    expect(html).toContain("What Agent Gate is, which of its surfaces to use");
  });

  it("/docs/<slug> renders the document with navigation and a Link to its twin", async () => {
    const res = await fetch(`${base}/docs/scopes`);
    expect(res.status).toBe(200);
    expect(res.headers.get("link")).toBe(`<${base}/docs/scopes.md>; rel="alternate"; type="text/markdown"`);
    const html = await res.text();
    expect(html).toContain("<h1>Scopes</h1>");
    expect(html).toMatch(/<table>/);
    expect(html).toContain('rel="next"');
    expect(html).toContain('aria-label="All documents"');
  });

  it("an unknown document is a 404 page", async () => {
    const res = await fetch(`${base}/docs/no-such-doc`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });
});

describe("markdown twins", () => {
  for (const page of PAGES) {
    it(`${twin(page)} and Accept: text/markdown on ${page} give the same markdown`, async () => {
      const viaTwin = await fetch(`${base}${twin(page)}`);
      expect(viaTwin.status).toBe(200);
      expect(viaTwin.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(viaTwin.headers.get("vary")).toMatch(/\bAccept\b/);
      const viaAccept = await fetch(`${base}${page}`, { headers: { Accept: "text/markdown" } });
      expect(viaAccept.status).toBe(200);
      expect(viaAccept.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(viaAccept.headers.get("vary")).toMatch(/\bAccept\b/);
      const text = await viaTwin.text();
      expect(await viaAccept.text()).toBe(text);
      expect(text).toMatch(/^# /);
      expect(text).not.toMatch(/<html|<div/i);
    });
  }

  it("a document's twin is its markdown source under its title", async () => {
    const text = await (await fetch(`${base}/docs/scopes.md`)).text();
    expect(text.startsWith("# Scopes\n\n> ")).toBe(true);
    expect(text).toContain("agent.registrations.read");
  });

  it("the account twin explains the page without any account data, even for a browser Accept list", async () => {
    const res = await fetch(`${base}/account`, { headers: { Accept: "text/markdown, text/html;q=0.9" }, redirect: "manual" });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/needs a signed-in member/);
  });

  it("HTML stays the default; markdown with a lower q than HTML is not chosen", async () => {
    const res = await fetch(`${base}/docs`, { headers: { Accept: "text/html, text/markdown;q=0.5" } });
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    await res.arrayBuffer();
  });

  it("an unknown document's twin is a markdown 404", async () => {
    const res = await fetch(`${base}/docs/no-such-doc.md`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    await res.arrayBuffer();
  });

  it("the internal markdown route is no page of its own", async () => {
    const res = await fetch(`${base}/page-markdown/docs/scopes`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });

  it("API paths are untouched by the markdown proxy", async () => {
    const res = await fetch(`${base}/api/nope`, { headers: { Accept: "text/markdown" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    await res.arrayBuffer();
  });
});

describe("/auth.md", () => {
  it("serves the service_auth walkthrough as markdown", async () => {
    const res = await fetch(`${base}/auth.md`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await res.text();
    expect(text.startsWith("# Delegated access with service_auth")).toBe(true);
    expect(text).toContain("/agent/identity");
    expect(text).toContain("urn:vendor:agent-auth:grant-type:claim");
  });
});

describe("/sitemap.xml", () => {
  it("lists every human page and its markdown twin as absolute URLs, and no API", async () => {
    const res = await fetch(`${base}/sitemap.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/xml/);
    const xml = await res.text();
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    const expected = PAGES.flatMap((p) => [`${base}${p === "/" ? "/" : p}`, `${base}${twin(p)}`]);
    expect(locs).toEqual(expected);
    expect(xml).not.toContain("/api/");
    // /map's HTML page belongs to the tools issue; its twin is served here.
    for (const loc of locs.filter((l) => l !== `${base}/map`)) {
      const page = await fetch(loc);
      expect(page.status, loc).toBe(200);
      await page.arrayBuffer();
    }
  });
});
