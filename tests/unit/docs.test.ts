// The docs corpus, search index, renderer, parsers and the batch runner (pure logic; no server).
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseBatchEnvelope, runBatch, type OperationHandler } from "@/lib/batch";
import { ManualClock } from "@/lib/clock";
import { askDocs, parseAskQuery } from "@/lib/docs/ask";
import { getCorpus, loadCorpus, parseDoc } from "@/lib/docs/corpus";
import { pageMarkdown } from "@/lib/docs/pages";
import { renderMarkdown } from "@/lib/docs/render";
import { askReply } from "@/lib/docs/responses";
import { buildIndex, hasCachedAnswer, searchDocs } from "@/lib/docs/search";
import { acceptQuality, pagePathOfTwin, prefersMarkdown } from "@/lib/docs/twins";
import { batchResponseSchema } from "@/lib/schemas/public-read";
import { simulate } from "@/lib/sandbox/simulate";
import { turns } from "@/lib/server/turns";
import { SIMULATOR_SCENARIOS, simulateResponseSchema, TOP_K_DEFAULT } from "@/lib/schemas/public-read";

describe("answers drawn from prose (issue 51)", () => {
  /** The lines of a body's fenced code blocks (commands, JSON answers, schemas), trimmed, those long enough to be told apart. */
  function codeLines(body: string): string[] {
    const lines: string[] = [];
    let inFence = false;
    for (const line of body.split("\n")) {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      else if (inFence && line.trim().length >= 24) lines.push(line.trim());
    }
    return lines;
  }

  it("no section of any document is searched or quoted by what only its code blocks say", () => {
    for (const doc of getCorpus().docs) {
      const prose = doc.sections.map((section) => section.text).join("\n");
      const onlyInCode = codeLines(doc.body).filter((line) => !doc.body.replace(/```[\s\S]*?```/g, "").includes(line));
      for (const line of onlyInCode) expect(prose, `${doc.slug}: ${line}`).not.toContain(line.replace(/[`*]/g, ""));
    }
  });

  it('"how do I poll for a token" is answered from the walkthrough\'s prose, never a webhook JSON Schema', () => {
    const { answers } = askDocs("how do I poll for a token", 5);
    expect(answers[0]?.slug).toBe("service-auth");
    for (const answer of answers) expect(answer.excerpt).not.toMatch(/"\$schema"|"type":|"properties"|json-schema\.org/);
  });
});

describe("corpus", () => {
  it("loads every document with valid front matter, unique slugs, in reading order", () => {
    const corpus = getCorpus();
    expect(corpus.docs.length).toBeGreaterThanOrEqual(17);
    expect(corpus.kinds).toEqual(["guide", "reference", "policy"]);
    expect(corpus.docs[0]!.slug).toBe("getting-started");
    for (const doc of corpus.docs) {
      expect(doc.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(doc.body.startsWith("---")).toBe(false);
      expect(doc.sections.length).toBeGreaterThan(0);
    }
  });

  it("names the file of a broken document", () => {
    expect(() => parseDoc("bad.md", "no front matter")).toThrow(/bad\.md: missing front matter/);
    expect(() => parseDoc("bad.md", "---\ntitle: x\n---\nbody")).toThrow(/bad\.md/);
  });

  it("refuses duplicate slugs in a content directory", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-"));
    const doc = `---\ntitle: "A"\nslug: "same"\nkind: "guide"\nsummary: "s"\nupdated: "2026-01-01"\n---\nText.\n`;
    fs.writeFileSync(path.join(dir, "a.md"), doc);
    fs.writeFileSync(path.join(dir, "b.md"), doc);
    expect(() => loadCorpus(dir)).toThrow(/duplicate slug/);
  });
});

describe("search", () => {
  it("answers a question with the right document first, deterministically", () => {
    const first = askDocs("how do I refresh an expired attempt", 3);
    expect(first.answers[0]?.slug).toBe("service-auth");
    expect(JSON.stringify(askDocs("how do I refresh an expired attempt", 3))).toBe(JSON.stringify(first));
    expect(askDocs("which scopes exist", 3).answers[0]?.slug).toBe("scopes");
  });

  it("orders equal scores by slug (stable tie-breaking)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-"));
    for (const slug of ["zeta", "alpha", "mid"]) {
      fs.writeFileSync(
        path.join(dir, `${slug}.md`),
        `---\ntitle: "Doc"\nslug: "${slug}"\nkind: "guide"\nsummary: "s"\nupdated: "2026-01-01"\n---\nThe word quokka appears here.\n`,
      );
    }
    const index = buildIndex(loadCorpus(dir));
    const hits = searchDocs("quokka", 10, index);
    expect(hits.map((h) => h.doc.slug)).toEqual(["alpha", "mid", "zeta"]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
  });

  it("ignores stop words only", () => {
    expect(askDocs("how do I", 3).answers).toEqual([]);
  });

  it("/ask runs a new question's search on its own event-loop turn, a cached one at once", async () => {
    const ask = (query: string) =>
      askReply({ method: "GET", target: `/ask?query=${encodeURIComponent(query)}`, headers: new Headers(), readBody: async () => ({ ok: true, value: "" }) });
    const question = `turn taking ${Date.now()}`;
    expect(hasCachedAnswer(question, TOP_K_DEFAULT)).toBe(false);
    const first = ask(question);
    expect(turns()?.waiting).toBe(1);
    expect((await first).status).toBe(200);
    expect(hasCachedAnswer(question, TOP_K_DEFAULT)).toBe(true);
    const again = ask(question);
    expect(turns()?.waiting).toBe(0);
    expect((await again).body).toBe((await first).body);
  });
});

describe("parsers never throw (fast-check)", () => {
  it("parseAskQuery accepts exactly one trimmed 2-500 character value", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom("query", "q", "other"), fc.string({ maxLength: 600 })), { maxLength: 4 }), (pairs) => {
        const params = new URLSearchParams(pairs);
        const result = parseAskQuery(params);
        const values = [...params.getAll("query"), ...params.getAll("q")];
        if (result.ok) {
          expect(values).toHaveLength(1);
          const length = [...values[0]!.trim()].length;
          expect(length >= 2 && length <= 500).toBe(true);
        }
      }),
    );
  });

  it("parseBatchEnvelope classifies any JSON value", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ items: fc.array(fc.record({ id: fc.string(), operation: fc.string(), arguments: fc.jsonValue() }), { maxLength: 12 }) })),
        (value) => {
          const result = parseBatchEnvelope(value);
          if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it("runBatch answers any item list with one result per item, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1 }), operation: fc.constantFrom("content.list", "docs.ask", "nope"), arguments: fc.jsonValue() }), {
          selector: (i) => i.id,
          minLength: 1,
          maxLength: 10,
        }),
        async (items) => {
          const response = await runBatch(items);
          expect(batchResponseSchema.parse(response).results.map((r) => r.id)).toEqual(items.map((i) => i.id));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("boundaries", () => {
  const ask = (value: string) => parseAskQuery(new URLSearchParams({ query: value }));
  it("question length 1/2/500/501 after trimming", () => {
    expect(ask("a").ok).toBe(false);
    expect(ask("ab").ok).toBe(true);
    expect(ask(`  ${"a".repeat(500)}  `).ok).toBe(true);
    expect(ask("a".repeat(501)).ok).toBe(false);
    expect(ask("   a   ").ok).toBe(false);
  });
  it("both or neither parameter is refused", () => {
    expect(parseAskQuery(new URLSearchParams()).ok).toBe(false);
    expect(parseAskQuery(new URLSearchParams({ query: "scopes", q: "scopes" })).ok).toBe(false);
    expect(parseAskQuery(new URLSearchParams("q=scopes&q=tokens")).ok).toBe(false);
    expect(parseAskQuery(new URLSearchParams({ q: "scopes" })).ok).toBe(true);
  });
  it("batch envelope holds 1 to 10 items with unique ids and no unknown members", () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `i${i}`, operation: "docs.ask", arguments: { query: "scopes" } }));
    expect(parseBatchEnvelope({ items: items(10) }).ok).toBe(true);
    expect(parseBatchEnvelope({ items: items(11) })).toEqual({ ok: false, message: "A batch holds 1 to 10 items." });
    expect(parseBatchEnvelope({ items: [] }).ok).toBe(false);
    expect(parseBatchEnvelope({ items: items(2), extra: 1 }).ok).toBe(false);
    expect(parseBatchEnvelope({ items: [{ ...items(1)[0], extra: 1 }] }).ok).toBe(false);
    expect(parseBatchEnvelope({ items: [items(1)[0], items(1)[0]] }).ok).toBe(false);
    expect(parseBatchEnvelope({ items: [{ operation: "docs.ask" }] }).ok).toBe(false);
  });
});

describe("batch deadline", () => {
  const item = (id: string, operation = "fast") => ({ id, operation, arguments: {} });
  const ok = { status: "ok" as const, result: { items: [] } };

  it("starts no item after the deadline; the running one finishes (injected clock)", async () => {
    const clock = new ManualClock();
    const ran: string[] = [];
    const operations: Record<string, OperationHandler> = {
      fast: () => {
        ran.push("fast");
        clock.advance(1);
        return ok;
      },
      slow: async () => {
        ran.push("slow");
        clock.advance(11);
        return ok;
      },
    };
    const response = await runBatch([item("a"), item("b", "slow"), item("c"), item("d")], { clock, operations });
    expect(response.results.map((r) => r.status)).toEqual(["ok", "ok", "skipped", "skipped"]);
    expect(ran).toEqual(["fast", "slow"]);
  });

  it("an item started just before the deadline still runs", async () => {
    const clock = new ManualClock();
    const operations: Record<string, OperationHandler> = { step: () => (clock.advance(4.999), ok) };
    const response = await runBatch([item("a", "step"), item("b", "step"), item("c", "step")], { clock, operations });
    expect(response.results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
  });

  it("real time: a slow operation makes later items skipped", async () => {
    const operations: Record<string, OperationHandler> = {
      slow: () => new Promise((resolve) => setTimeout(() => resolve(ok), 80)),
      fast: () => ok,
    };
    const response = await runBatch([item("a", "slow"), item("b"), item("c")], { deadlineMs: 50, operations });
    expect(response.results.map((r) => r.status)).toEqual(["ok", "skipped", "skipped"]);
  });

  it("an unknown operation or a throwing one fails only that item", async () => {
    const operations: Record<string, OperationHandler> = {
      fast: () => ok,
      boom: () => {
        throw new Error("boom");
      },
    };
    const response = await runBatch([item("a", "nope"), item("b", "boom"), item("c")], { operations });
    expect(response.results.map((r) => r.status)).toEqual(["error", "error", "ok"]);
  });
});

describe("rendering and negotiation", () => {
  it("escapes raw HTML and drops unsafe links", () => {
    const { html } = renderMarkdown("<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)> [ok](/docs/scopes)\n");
    expect(html).not.toMatch(/<script|<img|javascript:/);
    expect(html).toContain('<a href="/docs/scopes">ok</a>');
  });

  it("code blocks, which scroll, are keyboard-reachable named regions (issue 33)", () => {
    const { html } = renderMarkdown("```sh\ncurl -H 'A: <b>' \"$BASE\"\n```\n\n```\nplain\n```\n");
    expect(html).toContain(
      `<pre tabindex="0" role="region" aria-label="Code example (sh)"><code class="language-sh">curl -H &#39;A: &lt;b&gt;&#39; &quot;$BASE&quot;\n</code></pre>`,
    );
    expect(html).toContain(`<pre tabindex="0" role="region" aria-label="Code example"><code>plain\n</code></pre>`);
  });

  it("prefers markdown only when asked explicitly, by q-value", () => {
    expect(prefersMarkdown("text/markdown", "text/html")).toBe(true);
    expect(prefersMarkdown("text/html, text/markdown;q=0.5", "text/html")).toBe(false);
    expect(prefersMarkdown("text/markdown;q=0.9, text/html;q=0.9", "text/html")).toBe(true);
    expect(prefersMarkdown("*/*", "text/html")).toBe(false);
    expect(prefersMarkdown("text/markdown;q=0", "text/html")).toBe(false);
    expect(acceptQuality("TEXT/MARKDOWN; q=0.3", "text/markdown")).toBe(0.3);
    expect(pagePathOfTwin("/index.md")).toBe("/");
    expect(pagePathOfTwin("/docs/scopes.md")).toBe("/docs/scopes");
  });

  it("the account page's markdown shows no account data", () => {
    const md = pageMarkdown("/account").markdown;
    expect(md).toMatch(/needs a signed-in member/);
    expect(md).not.toMatch(/@example\.com/);
  });
});

describe("simulator", () => {
  it("answers every scenario with the production schemas, the same bytes each time", () => {
    for (const scenario of SIMULATOR_SCENARIOS) {
      const text = simulate(scenario);
      expect(simulate(scenario)).toBe(text);
      expect(simulateResponseSchema.parse(JSON.parse(text)).scenario).toBe(scenario);
    }
  });
});
