// Property tests over the outside-input parsers of /a2a and the community tools: no input makes them throw.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "a2a-js-sdk-v0-3";
import { JSONRPC_ERRORS, paramsToRun, parseA2aRequest } from "@/lib/a2a/jsonrpc";
import { parseA2aV1Request } from "@/lib/a2a/v1";
import { readInvocation } from "@/lib/a2a/invocation";
import { COMMUNITY_TOOLS } from "@/lib/tools";

const KNOWN_CODES = new Set<number>(Object.values(JSONRPC_ERRORS));
const METHODS = [
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "tasks/pushNotificationConfig/set",
  "tasks/list",
  "",
  "agent/getAuthenticatedExtendedCard",
];

function expectWellFormed(text: string): void {
  const parsed = parseA2aRequest(text);
  if (!parsed.ok) expect(KNOWN_CODES.has(parsed.error.code)).toBe(true);
}

const partArb = fc.oneof(
  fc.record({ kind: fc.constant("text"), text: fc.string({ maxLength: 200 }) }),
  fc.record({ kind: fc.constant("data"), data: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })) }),
  fc.record({
    kind: fc.constant("data"),
    data: fc.record({ skill: fc.oneof(fc.constantFrom(...COMMUNITY_TOOLS.map((t) => t.name)), fc.string()), input: fc.jsonValue({ maxDepth: 3 }) }),
  }),
  fc.anything(),
);

describe("A2A JSON-RPC parser", () => {
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (text) => expectWellFormed(text)),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => expectWellFormed(JSON.stringify(value))),
      { numRuns: 500 },
    );
  });

  it("never throws on envelope-shaped JSON with random params", () => {
    const envelope = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.double(), fc.jsonValue()),
        method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
        params: fc.oneof(
          fc.jsonValue({ maxDepth: 4 }),
          fc.record({
            message: fc.record(
              { kind: fc.constant("message"), role: fc.constantFrom("user", "agent", "x"), messageId: fc.string(), parts: fc.array(partArb, { maxLength: 4 }) },
              { requiredKeys: [] },
            ),
          }),
          fc.record({ id: fc.oneof(fc.string(), fc.integer()), historyLength: fc.oneof(fc.integer(), fc.double()) }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(envelope, (value) => expectWellFormed(JSON.stringify(value))),
      { numRuns: 1000 },
    );
  });

  it("classifies the error paths", () => {
    expect(parseA2aRequest("{")).toMatchObject({ ok: false, error: { code: -32700 } });
    expect(parseA2aRequest("[]")).toMatchObject({ ok: false, id: null, error: { code: -32600 } });
    expect(parseA2aRequest('{"jsonrpc":"2.0","id":9,"method":"nope"}')).toMatchObject({ ok: false, id: 9, error: { code: -32601 } });
    expect(parseA2aRequest('{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{}}')).toMatchObject({ ok: false, error: { code: -32602 } });
    expect(parseA2aRequest('{"jsonrpc":"2.0","id":9,"method":"message/stream"}')).toMatchObject({ ok: false, error: { code: -32004 } });
    expect(parseA2aRequest('{"jsonrpc":"2.0","id":9,"method":"tasks/pushNotificationConfig/get"}')).toMatchObject({ ok: false, error: { code: -32003 } });
    expect(parseA2aRequest('{"jsonrpc":"2.0","id":"a","method":"tasks/get","params":{"id":"t1"}}')).toMatchObject({ ok: true, id: "a", method: "tasks/get" });
  });

  it("does not take Object.prototype's members for methods", () => {
    for (const method of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(parseA2aRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method })), method).toMatchObject({ ok: false, error: { code: -32601 } });
    }
  });
});

describe("skill invocation reader", () => {
  it("never throws on arbitrary validated messages", () => {
    const parts = fc.array(
      fc.oneof(partArb.filter((p): p is Message["parts"][number] => typeof p === "object" && p !== null && "kind" in p && (p.kind === "text" || p.kind === "data"))),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(parts, (messageParts) => {
        const result = readInvocation({ kind: "message", role: "user", messageId: "m", parts: messageParts });
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 500 },
    );
  });

  it("reads the text forms", () => {
    const message = (text: string): Message => ({ kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text }] });
    expect(readInvocation(message("lookup_member  Ada Lovelace "))).toMatchObject({ ok: true, input: { name_or_slug: "Ada Lovelace" } });
    expect(readInvocation(message("get_community_stats"))).toMatchObject({ ok: true, input: {} });
    expect(readInvocation(message("verify_certificate AG-2025-0001"))).toMatchObject({ ok: true, input: { certificate_id: "AG-2025-0001" } });
    expect(readInvocation(message("lookup_member"))).toMatchObject({ ok: false });
    expect(readInvocation(message("register_agent Foo"))).toMatchObject({ ok: false, skill: "register_agent" });
    expect(readInvocation(message("toString x"))).toMatchObject({ ok: false, skill: "help", help: true });
  });
});

describe("tool input schemas", () => {
  it("accept or refuse any value without throwing", () => {
    fc.assert(
      fc.property(fc.constantFrom(...COMMUNITY_TOOLS), fc.anything(), (tool, value) => {
        expect(typeof tool.inputSchema.safeParse(value).success).toBe("boolean");
      }),
      { numRuns: 1000 },
    );
  });
});

describe("A2A strings: well-formed Unicode without NUL (issue 13)", () => {
  const rpc = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ message: { kind: "message", role: "user", messageId: "m-1", parts, ...extra } });

  it("refuses a lone surrogate or NUL in any id, part or metadata with invalid params (-32602)", () => {
    const bad = ["\ud800", "x\udfff", "a\u0000b"];
    for (const b of bad) {
      const bodies = [
        rpc("tasks/get", { id: b }),
        rpc("tasks/cancel", { id: `task-${b}` }),
        rpc("message/send", message([{ kind: "text", text: `lookup_member ${b}` }])),
        rpc("message/send", message([{ kind: "data", data: { skill: "lookup_member", input: { name_or_slug: b } } }])),
        rpc("message/send", message([{ kind: "data", data: { [b]: 1 } }])),
        rpc("message/send", message([{ kind: "text", text: "get_community_stats" }], { messageId: b })),
        rpc("message/send", message([{ kind: "text", text: "get_community_stats" }], { taskId: b })),
        rpc("message/send", message([{ kind: "text", text: "get_community_stats" }], { contextId: b })),
        rpc("message/send", message([{ kind: "text", text: "get_community_stats" }], { metadata: { note: b } })),
        rpc("message/send", { ...message([{ kind: "text", text: "get_community_stats" }]), metadata: { deep: [{ x: b }] } }),
      ];
      for (const body of bodies) {
        const parsed = parseA2aRequest(body);
        expect(parsed.ok, body).toBe(false);
        if (!parsed.ok) expect(parsed.error.code, body).toBe(JSONRPC_ERRORS.invalidParams);
      }
      const envelope = parseA2aRequest(rpc("tasks/get", { id: "t" }, `id-${b}`));
      expect(envelope).toMatchObject({ ok: false, id: null, error: { code: JSONRPC_ERRORS.invalidRequest } });
    }
  });

  it('checks the text rule on the strings as sent: a lone surrogate under a "__proto__" member is refused, not dropped', () => {
    // JSON.parse keeps "__proto__" as an own member; a schema's copy drops it, and its string with it (a fast-check counterexample).
    const body = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"x"},{"kind":"data","data":{"__proto__":"\\ud800"}}]}}}`;
    expect(parseA2aRequest(body)).toMatchObject({ ok: false, error: { code: JSONRPC_ERRORS.invalidParams, message: expect.stringMatching(/__proto__/) } });
  });

  it("accepts exactly the requests whose every string is acceptable text", () => {
    const hostile = fc.string({
      unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\ud800", "\udc00", "\u0000", "\u202e")),
      maxLength: 12,
    });
    fc.assert(
      fc.property(hostile, hostile, hostile, (text, key, id) => {
        const parsed = parseA2aRequest(
          rpc(
            "message/send",
            message([
              { kind: "text", text: text || "x" },
              { kind: "data", data: { [key]: id } },
            ]),
          ),
        );
        const acceptable = [text || "x", key, id].every((s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed() && !s.includes("\u0000"));
        expect(parsed.ok).toBe(acceptable);
        if (!parsed.ok) expect(parsed.error.code).toBe(JSONRPC_ERRORS.invalidParams);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the params the SDK runs", () => {
  const v1Send = (message: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "stats" }], ...message } } });
  const legacySend = (message: Record<string, unknown>) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "stats" }], ...message } },
    });
  function run(text: string, version: "0.3" | "1.0"): { configuration: Record<string, unknown> } {
    const parsed = version === "1.0" ? { ...parseA2aV1Request(text), version } : { ...parseA2aRequest(text), version };
    if (!parsed.ok) throw new Error(`does not parse: ${text}`);
    return paramsToRun(parsed) as ReturnType<typeof run>;
  }

  it("asks for the finished task in both generations and leaves the other methods' params as sent", () => {
    expect(run(v1Send({}), "1.0").configuration).toEqual({ returnImmediately: false });
    expect(run(legacySend({}), "0.3").configuration).toEqual({ blocking: true });
    const get = { ...parseA2aRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "t" } })), version: "0.3" as const };
    if (!get.ok) throw new Error("tasks/get does not parse");
    expect(paramsToRun(get)).toEqual({ id: "t" });
  });
});
