// The one text rule at the boundary (lib/schemas/text.ts) and strict JSON (lib/http/body.ts), issue 13.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiRequest } from "@/lib/http/api";
import { findDuplicateMember, readForm, readJsonObject } from "@/lib/http/body";
import { registrationRequestSchema, claimRefreshRequestSchema, tokenRequestSchema, revokeRequestSchema, clientNameSchema } from "@/lib/schemas/service-auth";
import { contentListArgumentsSchema, docsAskArgumentsSchema, batchRequestSchema, questionSchema, searchDocsInputShape, getDocInputShape } from "@/lib/schemas/public-read";
import { findStringWhere, isAcceptableText, isReadableName, text } from "@/lib/schemas/text";
import { COMMUNITY_TOOLS } from "@/lib/tools";
import { hostileString, NASTY_CHARACTERS } from "../support/hostile";

const LONE_SURROGATES = ["\ud800", "x\udbff", "\udc00y", "\udfff", "a\ud83d"];
const FORMAT_CHARACTERS = [
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u200e",
  "\u200f",
  "\u061c",
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2060",
  "\u2061",
  "\u2064",
  "\ufeff",
  "\u00ad",
  "\u{e0001}",
];

function apiRequest(body: string, contentType: string): ApiRequest {
  return {
    method: "POST",
    target: "/x",
    headers: { get: (name) => (name.toLowerCase() === "content-type" ? contentType : null) },
    readBody: async () => ({ ok: true, value: body }),
  };
}

describe("text(): well-formed UTF-16 and no NUL", () => {
  it("accepts exactly the well-formed strings without NUL (any code point otherwise)", () => {
    fc.assert(
      fc.property(hostileString(30), (value) => {
        const expected = (value as unknown as { isWellFormed(): boolean }).isWellFormed() && !value.includes("\u0000");
        expect(text().safeParse(value).success).toBe(expected);
        expect(isAcceptableText(value)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses every lone surrogate and NUL", () => {
    for (const bad of [...LONE_SURROGATES, "a\u0000b", "\u0000"]) expect(text().safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    expect(text().safeParse("Ada 😀 Lovelace").success).toBe(true);
  });

  const outsideSchemas: [string, (bad: string) => boolean][] = [
    ["registration client_name", (bad) => registrationRequestSchema.safeParse({ type: "service_auth", login_hint: "ada@example.com", client_name: `x${bad}` }).success],
    ["registration login_hint", (bad) => registrationRequestSchema.safeParse({ type: "service_auth", login_hint: `ada${bad}@example.com` }).success],
    ["claim refresh", (bad) => claimRefreshRequestSchema.safeParse({ claim_token: `clm_${bad}`, email: "ada@example.com" }).success],
    ["claim refresh email", (bad) => claimRefreshRequestSchema.safeParse({ claim_token: "clm_x", email: `a${bad}` }).success],
    ["token claim_token", (bad) => tokenRequestSchema.safeParse({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: `clm_${bad}` }).success],
    [
      "token assertion",
      (bad) => tokenRequestSchema.safeParse({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: `e${bad}`, resource: "http://x/api" }).success,
    ],
    ["revoke token", (bad) => revokeRequestSchema.safeParse({ token: `aca_${bad}` }).success],
    ["question", (bad) => questionSchema.safeParse(`how ${bad} poll`).success],
    ["content.list query", (bad) => contentListArgumentsSchema.safeParse({ query: `poll${bad}` }).success],
    ["docs.ask query", (bad) => docsAskArgumentsSchema.safeParse({ query: `poll${bad}` }).success],
    ["batch item id", (bad) => batchRequestSchema.safeParse({ items: [{ id: `a${bad}`, operation: "docs.ask" }] }).success],
    ["search_docs query", (bad) => searchDocsInputShape.query.safeParse(`poll${bad}`).success],
    ["get_doc slug", (bad) => getDocInputShape.slug.safeParse(`a${bad}`).success],
    ...COMMUNITY_TOOLS.flatMap((tool) =>
      Object.keys(tool.inputSchema.shape)
        .filter((field) => field !== "user_authorized")
        .map((field): [string, (bad: string) => boolean] => [
          `${tool.name}.${field}`,
          (bad) => tool.inputSchema.safeParse({ ...(tool.name === "register_agent" ? { agent_name: "Agent", user_authorized: true } : {}), [field]: `Name${bad}x` }).success,
        ]),
    ),
  ];

  for (const [name, accepts] of outsideSchemas) {
    it(`${name} refuses lone surrogates and NUL, and takes the plain value`, () => {
      for (const bad of [...LONE_SURROGATES, "\u0000"]) expect(accepts(bad), JSON.stringify(bad)).toBe(false);
      expect(accepts("")).toBe(true);
    });
  }
});

describe("names people read (client_name, agent_name)", () => {
  it("refuse every Unicode format character (Cf) and control character", () => {
    for (const bad of [...FORMAT_CHARACTERS, "\u0000", "\u0007", "\u007f", "\u0085"]) {
      expect(clientNameSchema.safeParse(`Good${bad}liaM`).success, JSON.stringify(bad)).toBe(false);
      expect(clientNameSchema.safeParse(`${bad}Admin`).success, JSON.stringify(bad)).toBe(false);
    }
    expect(clientNameSchema.safeParse("Good\u202eliaM").success).toBe(false);
    expect(clientNameSchema.safeParse("\u200bAdmin").success).toBe(false);
  });

  it("keep accepting ordinary names in any script", () => {
    for (const name of ["Ada's Research Helper", "Trip Planner Agent", "مساعد البحث", "אגנט", "エージェント", "Zoë 😀", "Agent-007"]) {
      expect(clientNameSchema.safeParse(name).success, name).toBe(true);
    }
  });

  it("accept a name exactly when it has no control, format, ill-formed or surrounding-space character", () => {
    fc.assert(
      fc.property(hostileString(20), (value) => {
        const expected = value.length >= 1 && [...value].length <= 120 && isReadableName(value) && value.trim() === value;
        expect(clientNameSchema.safeParse(value).success).toBe(expected);
        if (expected) expect(/\p{Cf}|\p{Cc}/u.test(value)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

/** A JSON text whose objects are member lists, so a test can repeat names and spell them with escapes. */
type RawJson = { kind: "object"; members: [string, RawJson][] } | { kind: "array"; items: RawJson[] } | { kind: "leaf"; value: unknown };

function serialize(value: RawJson, escapeNames: boolean): string {
  if (value.kind === "leaf") return JSON.stringify(value.value);
  if (value.kind === "array") return `[${value.items.map((item) => serialize(item, escapeNames)).join(", ")}]`;
  const name = (key: string): string => (escapeNames ? `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"` : JSON.stringify(key));
  return `{${value.members.map(([key, inner]) => `${name(key)}: ${serialize(inner, escapeNames)}`).join(",\n")}}`;
}

function hasRepeatedName(value: RawJson): boolean {
  if (value.kind === "leaf") return false;
  if (value.kind === "array") return value.items.some(hasRepeatedName);
  const names = value.members.map(([key]) => key);
  return new Set(names).size !== names.length || value.members.some(([, inner]) => hasRepeatedName(inner));
}

const rawJson: fc.Arbitrary<RawJson> = fc.letrec<{ node: RawJson }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }).map((value): RawJson => ({ kind: "leaf", value })),
    fc
      .array(fc.tuple(fc.constantFrom("a", "b", "é", "\u0000", "\\", '"', "__proto__", "a\u0000", "{", "}", ","), tie("node")), { maxLength: 4 })
      .map((members): RawJson => ({ kind: "object", members })),
    fc.array(tie("node"), { maxLength: 3 }).map((items): RawJson => ({ kind: "array", items })),
  ),
})).node;

describe("findDuplicateMember (strict JSON)", () => {
  it("finds a repeated member name exactly when one object repeats one, however it is escaped", () => {
    fc.assert(
      fc.property(rawJson, fc.boolean(), (value, escapeNames) => {
        const textValue = serialize(value, escapeNames);
        expect(() => JSON.parse(textValue)).not.toThrow();
        expect(findDuplicateMember(textValue) !== null).toBe(hasRepeatedName(value));
      }),
      { numRuns: 1000 },
    );
  });

  it("finds none in anything JSON.stringify writes (JSON.parse's own objects)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        expect(findDuplicateMember(JSON.stringify(value))).toBeNull();
        expect(findDuplicateMember(JSON.stringify(value, null, 2))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it("names the repeated member, and a repeat inside a string is no repeat", () => {
    expect(findDuplicateMember('{"login_hint": "a@example.com", "login_hint": "b@example.com"}')).toBe("login_hint");
    expect(findDuplicateMember('{"a": 1, "\\u0061": 2}')).toBe("a");
    expect(findDuplicateMember('{"a": "\\"a\\": 1, \\"a\\": 2", "b": [{"a": 1}, {"a": 2}]}')).toBeNull();
    expect(findDuplicateMember('{"a": {"x": 1}, "b": {"x": 1, "y": {}, "x": 3}}')).toBe("x");
  });
});

describe("readJsonObject and readForm", () => {
  it("refuse a repeated member name and ill-formed strings anywhere, and take the rest", async () => {
    const read = (body: string) => readJsonObject(apiRequest(body, "application/json"), 16_384);
    expect(await read('{"type": "service_auth", "login_hint": "a@example.com", "login_hint": "b@example.com"}')).toMatchObject({ ok: false, reason: "invalid" });
    expect(await read('{"items": [{"id": "a", "arguments": {"q": 1, "q": 2}}]}')).toMatchObject({ ok: false, reason: "invalid" });
    expect(await read('{"client_name": "x\\ud800"}')).toMatchObject({ ok: false, reason: "invalid", message: expect.stringContaining("client_name") });
    expect(await read('{"\\udc00": 1}')).toMatchObject({ ok: false, reason: "invalid" });
    expect(await read('{"a": "\\ud83d\\ude00", "b": [1, {"c": null}]}')).toEqual({ ok: true, value: { a: "😀", b: [1, { c: null }] } });
  });

  it("never throws, and refuses exactly the repeated names and ill-formed strings among JSON objects", async () => {
    await fc.assert(
      fc.asyncProperty(rawJson, async (value) => {
        const body = serialize(value, false);
        const result = await readJsonObject(apiRequest(body, "application/json"), 1 << 20);
        const parsed = JSON.parse(body) as unknown;
        const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
        const illFormed = findStringWhere(parsed, (s) => !(s as unknown as { isWellFormed(): boolean }).isWellFormed()) !== null;
        expect(result.ok).toBe(isObject && !hasRepeatedName(value) && !illFormed);
      }),
      { numRuns: 500 },
    );
  });

  it("readForm refuses NUL in a field name or value", async () => {
    const read = (body: string) => readForm(apiRequest(body, "application/x-www-form-urlencoded"), 2048);
    expect(await read("token=aca_%00x")).toMatchObject({ ok: false, reason: "invalid" });
    expect(await read("to%00ken=x")).toMatchObject({ ok: false, reason: "invalid" });
    expect(await read("token=%ED%A0%80")).toMatchObject({ ok: true });
    for (const c of NASTY_CHARACTERS.filter((c) => c !== "\u0000")) {
      const result = await read(new URLSearchParams({ token: `a${c}` }).toString());
      expect(result.ok, JSON.stringify(c)).toBe(true);
    }
  });
});
