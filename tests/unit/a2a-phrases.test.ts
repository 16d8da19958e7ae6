// Issue 42 item 3: the plain-language reading of A2A text parts (lib/a2a/phrases.ts). A sentence that asks for one
// read-only skill runs it; no match, more than one, or any request to register gets the help answer; the literal
// text forms and data parts read exactly as before.
import { describe, expect, it } from "vitest";
import type { Message } from "a2a-js-sdk-v0-3";
import { readInvocation } from "@/lib/a2a/invocation";
import { helpText, MAX_PHRASE_LENGTH, readPhrase, sentenceExample } from "@/lib/a2a/phrases";
import { COMMUNITY_TOOLS } from "@/lib/tools";

const text = (value: string): Message => ({ kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text: value }] });
const data = (value: Record<string, unknown>): Message => ({ kind: "message", role: "user", messageId: "m", parts: [{ kind: "data", data: value }] });

describe("sentences that ask for one skill run it", () => {
  it.each([
    ["how many members are there?", "get_community_stats", {}],
    ["member count", "get_community_stats", {}],
    ["How many members does the community have?", "get_community_stats", {}],
    ["What is the number of members?", "get_community_stats", {}],
    ["Get community stats", "get_community_stats", {}],
    ["verify certificate AG-2025-0001", "verify_certificate", { certificate_id: "AG-2025-0001" }],
    ["is AG-2025-0001 valid?", "verify_certificate", { certificate_id: "AG-2025-0001" }],
    ["Is certificate ag-2025-0002 still valid?", "verify_certificate", { certificate_id: "AG-2025-0002" }],
    ["look up certificate AG-2024-0099", "verify_certificate", { certificate_id: "AG-2024-0099" }],
    ["check certificate XYZ1", "verify_certificate", { certificate_id: "XYZ1" }],
    ["look up Ada Lovelace", "lookup_member", { name_or_slug: "Ada Lovelace" }],
    ["who is ada-lovelace", "lookup_member", { name_or_slug: "ada-lovelace" }],
    ["Who's Grace Hopper?", "lookup_member", { name_or_slug: "Grace Hopper" }],
    ["Is Ada Lovelace a member of the community?", "lookup_member", { name_or_slug: "Ada Lovelace" }],
    ["Look up the member with the slug grace-hopper.", "lookup_member", { name_or_slug: "grace-hopper" }],
    ["Can you please find the member named Sofía Ramírez?", "lookup_member", { name_or_slug: "Sofía Ramírez" }],
    ["show me the profile of alan-turing", "lookup_member", { name_or_slug: "alan-turing" }],
    ['Is there a member called "Edsger Dijkstra"?', "lookup_member", { name_or_slug: "Edsger Dijkstra" }],
  ])("%s → %s", (sentence, skill, input) => {
    expect(readPhrase(sentence)).toEqual({ kind: "run", skill, input });
    expect(readInvocation(text(sentence))).toMatchObject({ ok: true, tool: { name: skill }, input });
  });

  it("every sentence the help answer and the agent card give as an example runs its own skill", () => {
    for (const tool of COMMUNITY_TOOLS) {
      const sentences = [sentenceExample(tool.name), ...tool.examples.map((example) => example.prompt)].filter((s): s is string => s !== undefined);
      for (const sentence of sentences) {
        const reading = readPhrase(sentence);
        if (tool.name === "register_agent") expect(reading, sentence).toEqual({ kind: "help", reason: "register" });
        else expect(reading, sentence).toEqual({ kind: "run", skill: tool.name, input: tool.examples.find((e) => e.prompt === sentence)?.input ?? expect.any(Object) });
      }
    }
  });
});

describe("anything else gets the help answer", () => {
  it.each(["tell me everything", "hello", "what can you do?", "", "find all members", "who is the oldest member?", "how many certificates are there?", "lookup_members Ada"])(
    "no skill: %j",
    (sentence) => {
      expect(readPhrase(sentence)).toEqual({ kind: "help", reason: "unmatched" });
    },
  );

  it("more than one skill is ambiguous and names them", () => {
    expect(readPhrase("how many members are there, and is AG-2025-0001 valid?")).toEqual({
      kind: "help",
      reason: "ambiguous",
      skills: ["verify_certificate", "get_community_stats"],
    });
    expect(readPhrase("is AG-2025-0001 or AG-2025-0002 valid?")).toEqual({ kind: "help", reason: "unmatched" });
  });

  it.each([
    'Yes, I authorize you to pre-register the agent name "Trip Planner" now.',
    "register my agent Trip Planner",
    "please sign up my agent",
    "registration for Calendar Scout",
  ])("register_agent never runs from words: %j", (sentence) => {
    expect(readPhrase(sentence)).toEqual({ kind: "help", reason: "register" });
    const invocation = readInvocation(text(sentence));
    expect(invocation).toMatchObject({ ok: false, help: true, skill: "help" });
    expect(invocation.ok ? "" : invocation.message).toMatch(/^register_agent never runs from a sentence: .*"user_authorized": true/);
  });

  it("texts longer than a question are not read", () => {
    expect(readPhrase(`look up ${"a".repeat(MAX_PHRASE_LENGTH)}`)).toEqual({ kind: "help", reason: "unmatched" });
  });

  it("the help answer lists every skill with one example, and never says a bare Unrecognized request", () => {
    const answer = readInvocation(text("tell me everything"));
    if (answer.ok) throw new Error("expected the help answer");
    expect(answer).toMatchObject({ help: true, skill: "help" });
    expect(answer.message).not.toMatch(/Unrecognized request/);
    for (const tool of COMMUNITY_TOOLS) {
      const line = answer.message.split("\n").find((l) => l.startsWith(`- ${tool.name} (`));
      expect(line, tool.name).toContain(JSON.stringify({ skill: tool.name, input: tool.examples[0]!.input }));
      const sentence = sentenceExample(tool.name);
      if (sentence) expect(line).toContain(`say "${sentence}"`);
    }
    expect(helpText({ kind: "help", reason: "ambiguous", skills: ["verify_certificate", "get_community_stats"] })).toMatch(
      /^That text could ask for more than one skill \(verify_certificate, get_community_stats\)/,
    );
  });
});

describe("the literal forms and data parts read exactly as before", () => {
  it("literal text forms", () => {
    expect(readInvocation(text("lookup_member Ada Lovelace"))).toMatchObject({ ok: true, tool: { name: "lookup_member" }, input: { name_or_slug: "Ada Lovelace" } });
    expect(readInvocation(text("get_community_stats"))).toMatchObject({ ok: true, tool: { name: "get_community_stats" }, input: {} });
    expect(readInvocation(text("verify_certificate AG-2025-0001"))).toMatchObject({ ok: true, input: { certificate_id: "AG-2025-0001" } });
    // The literal form's argument is taken whole, even when it reads like a sentence.
    expect(readInvocation(text("lookup_member how many members"))).toMatchObject({ ok: true, input: { name_or_slug: "how many members" } });
    expect(readInvocation(text("get_community_stats please"))).toEqual({ ok: false, skill: "get_community_stats", message: "get_community_stats takes no argument." });
    expect(readInvocation(text("lookup_member"))).toEqual({ ok: false, skill: "lookup_member", message: 'Write "lookup_member <name_or_slug>".' });
    expect(readInvocation(text("register_agent Foo"))).toMatchObject({ ok: false, skill: "register_agent", message: expect.stringMatching(/needs a data part/) });
    expect(readInvocation(text("register_agent Foo"))).not.toHaveProperty("help");
  });

  it("data parts", () => {
    expect(readInvocation(data({ skill: "get_community_stats", input: {} }))).toMatchObject({ ok: true, tool: { name: "get_community_stats" } });
    expect(readInvocation(data({ skill: "how many members are there?" }))).toMatchObject({ ok: false, skill: "unknown", message: expect.stringMatching(/^Unknown skill/) });
    expect(readInvocation(data({ input: {} }))).toMatchObject({ ok: false, skill: "unknown", message: expect.stringMatching(/lacks a "skill" string/) });
    expect(readInvocation(data({ input: {} }))).not.toHaveProperty("help");
  });
});
