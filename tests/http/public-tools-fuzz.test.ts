// No input makes /a2a or a /mcp tool call answer 500 (fast-check against `next start`).
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { expectNoInternals, hostileString } from "../support/hostile";

const base = inject("baseUrl");
const SKILLS = ["lookup_member", "get_community_stats", "verify_certificate", "register_agent", "unknown_tool"];

describe("fuzzing the public tool endpoints", () => {
  it("/a2a never answers 500", { timeout: 120_000 }, async () => {
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc
        .record({
          method: fc.constantFrom("message/send", "tasks/get", "tasks/cancel", "message/stream", "x"),
          skill: fc.constantFrom(...SKILLS),
          input: fc.jsonValue({ maxDepth: 3 }),
          text: fc.oneof(fc.string({ maxLength: 100 }), hostileString(40)),
          id: fc.oneof(fc.string(), hostileString(20), fc.integer()),
        })
        .map(({ method, skill, input, text, id }) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method,
            params: {
              id: String(id),
              message: {
                kind: "message",
                role: "user",
                messageId: `m-${id}`,
                parts: [
                  { kind: "data", data: { skill, input } },
                  { kind: "text", text },
                ],
              },
            },
          }),
        ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json" }, body: payload });
        expect(res.status).toBeLessThan(500);
        expectNoInternals(await res.text(), base, "/a2a");
      }),
      { numRuns: 60 },
    );
  });

  it("/mcp tools/call never answers 500", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SKILLS),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom("name_or_slug", "certificate_id", "agent_name", "description"), hostileString(30))),
        async (name, args) => {
          const res = await fetch(`${base}/mcp`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
          });
          expect(res.status).toBeLessThan(500);
          expectNoInternals(await res.text(), base, "/mcp");
        },
      ),
      { numRuns: 60 },
    );
  });
});
