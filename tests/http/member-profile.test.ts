import { describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");

describe("public member profile pages and their markdown twins", () => {
  it("a public profile renders as HTML with a markdown alternate", async () => {
    const res = await fetch(`${base}/members/ada-lovelace`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Ada Lovelace");
    expect(res.headers.get("link")).toContain(`<${base}/members/ada-lovelace.md>; rel="alternate"; type="text/markdown"`);
  });

  it.each([
    ["/members/ada-lovelace.md", {}],
    ["/members/ada-lovelace", { accept: "text/markdown" }],
  ])("%s answers markdown without any e-mail", async (path, headers) => {
    const res = await fetch(`${base}${path}`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(res.headers.get("vary")).toContain("Accept");
    const md = await res.text();
    expect(md).toMatch(/^# Ada Lovelace\n\nMember since March 2023\. Lives in London, United Kingdom\./);
    expect(md).not.toContain("@");
  });

  it("a member without a public profile has neither page nor twin", async () => {
    expect((await fetch(`${base}/members/pat-private`)).status).toBe(404);
    const twin = await fetch(`${base}/members/pat-private.md`);
    expect(twin.status).toBe(404);
    expect(await twin.text()).not.toContain("Pat Private");
  });
});
