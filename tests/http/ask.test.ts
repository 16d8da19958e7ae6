// GET|HEAD /ask (CONTRACT.md §9).
import { describe, expect, inject, it } from "vitest";
import { askResponseSchema } from "@/lib/schemas/public-read";

const base = inject("baseUrl");
const ask = (query: string, init?: RequestInit) => fetch(`${base}/ask?${query}`, init);

async function expectInvalid(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(await res.json()).toEqual({ error: "invalid_request", error_description: expect.any(String) });
}

describe("/ask parameters", () => {
  it("1 character is refused, 2 accepted, 500 accepted, 501 refused (after trimming)", async () => {
    await expectInvalid(await ask("query=a"));
    await expectInvalid(await ask(`query=${encodeURIComponent("   a   ")}`));
    expect((await ask("query=ab")).status).toBe(200);
    const res500 = await ask(`query=${encodeURIComponent(` ${"x".repeat(500)} `)}`);
    expect(res500.status).toBe(200);
    expect(((await res500.json()) as { query: string }).query).toBe("x".repeat(500));
    await expectInvalid(await ask(`query=${"x".repeat(501)}`));
  });

  it("counts characters, not UTF-16 units: 500 emoji accepted, 501 refused; words past the first 32 search terms are not searched", async () => {
    const emoji = encodeURIComponent("\u{1f600}");
    expect((await ask(`query=${emoji.repeat(500)}`)).status).toBe(200);
    await expectInvalid(await ask(`q=${emoji.repeat(501)}`));
    const filler = Array.from({ length: 32 }, (_, i) => `zq${i}`);
    const answersOf = async (query: string) => askResponseSchema.parse(await (await ask(`query=${encodeURIComponent(query)}`)).json()).answers;
    expect((await answersOf(`${filler.slice(1).join(" ")} revoke`)).length).toBeGreaterThan(0);
    expect(await answersOf(`${filler.join(" ")} revoke`)).toEqual([]);
  });

  it("q is the alias; exactly one of query or q", async () => {
    const viaQ = await ask("q=scopes");
    const viaQuery = await ask("query=scopes");
    expect(viaQ.status).toBe(200);
    expect(await viaQ.text()).toBe(await viaQuery.text());
    await expectInvalid(await ask("query=scopes&q=scopes"));
    await expectInvalid(await ask("query=scopes&query=tokens"));
    await expectInvalid(await fetch(`${base}/ask`));
  });
});

describe("/ask answers", () => {
  it("JSON shape with absolute URLs and CORS", async () => {
    const res = await ask(`query=${encodeURIComponent("how do I refresh an expired attempt")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("vary")).toMatch(/Accept/);
    const body = askResponseSchema.parse(await res.json());
    expect(body.query).toBe("how do I refresh an expired attempt");
    expect(body.answers.length).toBeGreaterThan(0);
    expect(body.answers[0]!.slug).toBe("service-auth");
    for (const answer of body.answers) {
      expect(Object.keys(answer)).toEqual(["slug", "title", "url", "excerpt", "score"]);
      expect(answer.url).toBe(`${base}/docs/${answer.slug}`);
    }
  });

  it("the same question gets the same bytes (JSON and markdown)", async () => {
    const q = `query=${encodeURIComponent("slow_down polling interval")}`;
    const a = new Uint8Array(await (await ask(q)).arrayBuffer());
    const b = new Uint8Array(await (await ask(q)).arrayBuffer());
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const m1 = await (await ask(q, { headers: { Accept: "text/markdown" } })).text();
    const m2 = await (await ask(q, { headers: { Accept: "text/markdown" } })).text();
    expect(m1).toBe(m2);
  });

  it("markdown with Accept: text/markdown", async () => {
    const res = await ask("q=which%20scopes%20exist", { headers: { Accept: "text/markdown" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await res.text();
    expect(text).toMatch(/^# Answers from the documentation/);
    expect(text).toContain(`${base}/docs/scopes`);
  });

  it("a question without matches answers an empty list", async () => {
    const body = (await (await ask("query=zzqqxxyy")).json()) as { answers: unknown[] };
    expect(body.answers).toEqual([]);
  });

  it("HEAD answers the headers without a body; other methods 405", async () => {
    const head = await ask("query=scopes", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/json");
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const post = await ask("query=scopes", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    await post.arrayBuffer();
  });
});
