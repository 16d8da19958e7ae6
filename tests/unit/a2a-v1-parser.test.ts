// Property tests over the A2A 1.0 input parsers (issue 15 item 8): the JSON-RPC body under A2A-Version: 1.0 and the
// A2A-Version header itself. No input makes them throw; every refusal carries one of the protocol's codes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JSONRPC_ERRORS } from "@/lib/a2a/jsonrpc";
import { parseA2aV1Request, V1_METHODS } from "@/lib/a2a/v1";
import { negotiateA2aVersion } from "@/lib/a2a/version";
import { findStringWhere, isAcceptableText } from "@/lib/schemas/text";

const KNOWN_CODES = new Set<number>(Object.values(JSONRPC_ERRORS));
const METHODS = [
  ...V1_METHODS,
  "SendStreamingMessage",
  "SubscribeToTask",
  "GetExtendedAgentCard",
  "CreateTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "message/send",
  "tasks/get",
  "toString",
  "__proto__",
  "",
];

function expectWellFormed(text: string): void {
  const parsed = parseA2aV1Request(text);
  if (parsed.ok) {
    expect(V1_METHODS).toContain(parsed.method);
    return;
  }
  expect(KNOWN_CODES.has(parsed.error.code), JSON.stringify(parsed.error)).toBe(true);
  // 1.0's own errors carry their ErrorInfo detail; the JSON-RPC ones (-32700, -32600, -32601) a message only.
  if (parsed.error.code > -32100 || parsed.error.code === -32602) expect(parsed.error.data).toEqual([expect.objectContaining({ domain: "a2a-protocol.org" })]);
}

const hostileString = fc.string({ unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\ud800", "\udc00", "\u0000")), maxLength: 20 });
const stringish = fc.oneof(fc.string({ maxLength: 40 }), hostileString, fc.constant(""));
const v1Part = fc.oneof(
  fc.record({ text: stringish }, { requiredKeys: [] }),
  fc.record({
    data: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ skill: fc.constantFrom("lookup_member", "get_community_stats", "nope"), input: fc.jsonValue({ maxDepth: 2 }) })),
  }),
  fc.record({ url: stringish, raw: stringish, mediaType: stringish, filename: stringish }, { requiredKeys: [] }),
  fc.anything(),
);
const v1Params = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      message: fc.record(
        {
          messageId: stringish,
          role: fc.constantFrom("ROLE_USER", "ROLE_AGENT", "user", "ROLE_UNSPECIFIED", 1),
          parts: fc.array(v1Part, { maxLength: 4 }),
          contextId: stringish,
          taskId: stringish,
          metadata: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      configuration: fc.record({ historyLength: fc.oneof(fc.integer(), fc.double()), returnImmediately: fc.anything() }, { requiredKeys: [] }),
      tenant: stringish,
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      id: fc.oneof(stringish, fc.integer()),
      contextId: stringish,
      historyLength: fc.oneof(fc.integer(), fc.double()),
      pageSize: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.double()),
      pageToken: stringish,
      status: fc.oneof(fc.constantFrom("TASK_STATE_COMPLETED", "completed", "TASK_STATE_UNSPECIFIED"), stringish),
      statusTimestampAfter: fc.oneof(fc.constant("2026-05-01T08:00:00Z"), stringish),
      includeArtifacts: fc.anything(),
    },
    { requiredKeys: [] },
  ),
);

describe("A2A 1.0 JSON-RPC parser", () => {
  it("never throws on arbitrary text or JSON", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
        ),
        (text) => expectWellFormed(text),
      ),
      { numRuns: 500 },
    );
  });

  it("never throws on envelope-shaped JSON with random 1.0 params, and accepts only the text rule's strings", () => {
    const envelope = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.double(), hostileString),
        method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
        params: v1Params,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(envelope, (value) => {
        const text = JSON.stringify(value);
        expectWellFormed(text);
        const parsed = parseA2aV1Request(text);
        if (parsed.ok) expect(findStringWhere(JSON.parse(text), (s) => !isAcceptableText(s))).toBeNull();
      }),
      { numRuns: 1500 },
    );
  });

  it("classifies the error paths with 1.0's codes", () => {
    const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    expect(parseA2aV1Request("{")).toMatchObject({ ok: false, error: { code: -32700 } });
    expect(parseA2aV1Request("[]")).toMatchObject({ ok: false, id: null, error: { code: -32600 } });
    expect(parseA2aV1Request(rpc("message/send", {}))).toMatchObject({ ok: false, error: { code: -32601 } });
    expect(parseA2aV1Request(rpc("SendStreamingMessage", {}))).toMatchObject({ ok: false, error: { code: -32004 } });
    expect(parseA2aV1Request(rpc("DeleteTaskPushNotificationConfig", {}))).toMatchObject({ ok: false, error: { code: -32003 } });
    expect(parseA2aV1Request(rpc("ListTasks", {}))).toMatchObject({ ok: false, error: { code: -32602, message: expect.stringMatching(/contextId/) } });
    expect(parseA2aV1Request(rpc("GetTask", { id: "t", tenant: "x" }))).toMatchObject({ ok: false, error: { code: -32602 } });
    expect(parseA2aV1Request(rpc("GetTask", { id: "t" }))).toMatchObject({ ok: true, method: "GetTask" });
    expect(parseA2aV1Request(rpc("SendMessage", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "get_community_stats" }], contextId: "" } }))).toMatchObject({
      ok: true,
      method: "SendMessage",
    });
    for (const method of ["toString", "constructor", "__proto__", "hasOwnProperty"])
      expect(parseA2aV1Request(rpc(method, {}))).toMatchObject({ ok: false, error: { code: -32601 } });
  });

  it('checks the text rule on the strings as sent: a lone surrogate under a "__proto__" member is refused, not dropped', () => {
    // JSON.parse keeps "__proto__" as an own member; a schema's copy drops it, and its string with it (a fast-check counterexample).
    const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"},{"data":{"__proto__":"\\ud800"}}]}}}`;
    expect(parseA2aV1Request(body)).toMatchObject({ ok: false, error: { code: JSONRPC_ERRORS.invalidParams, message: expect.stringMatching(/__proto__/) } });
  });
});

describe("A2A-Version negotiation", () => {
  it("absent or blank is 0.3; 0.3.x and 1.0.x are theirs; nothing else is served", () => {
    for (const header of [null, undefined, "", "  ", "0.3", "0.3.0", "00.3"]) expect(negotiateA2aVersion(header), String(header)).toEqual({ ok: true, version: "0.3" });
    for (const header of ["1.0", "1.0.0", " 1.0 ", "1.00"]) expect(negotiateA2aVersion(header), header).toEqual({ ok: true, version: "1.0" });
    for (const header of ["1", "2.0", "0.2.6", "1.1", "v1.0", "1.0-beta", "1.0,0.3", "1.0.0.0"])
      expect(negotiateA2aVersion(header), header).toEqual({ ok: false, requested: header });
  });

  it("never throws, and accepts only Major.Minor forms of 0.3 and 1.0", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), hostileString, fc.stringMatching(/^\d{1,5}\.\d{1,5}(\.\d{1,5})?$/)), (header) => {
        const negotiated = negotiateA2aVersion(header);
        if (negotiated.ok && header.trim() !== "") {
          const [major, minor] = header.trim().split(".").map(Number);
          expect(`${major}.${minor}`).toBe(negotiated.version);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
