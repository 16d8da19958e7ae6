// Property tests over both body parsers (strict JSON for /agent/identity*, forms for /oauth2/*): no input
// gives a 500, every refusal is a CONTRACT.md §2 error body, and a refused request writes nothing.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CLAIM_GRANT, JWT_BEARER_GRANT, freshIp, useAuthServer } from "../support/agent-auth";
import { hostileString } from "../support/hostile";

let base = "";

useAuthServer((url) => {
  base = url;
});

async function rowCounts(): Promise<Record<string, number>> {
  const { getDb } = await import("@/lib/db/prisma");
  const db = getDb();
  return {
    registrations: await db.registration.count(),
    attempts: await db.claimAttempt.count(),
    delegations: await db.delegation.count(),
    tokens: await db.accessToken.count(),
    revoked: await db.accessToken.count({ where: { revokedAt: { not: null } } }),
    audit: await db.auditEvent.count(),
  };
}

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", ""];

const scopeValue = fc.oneof(fc.constantFrom("agent.account.read", "agent.registrations.read", "agent.account.write"), fc.string());
const loginHint = fc.oneof(fc.emailAddress(), fc.string(), hostileString(), fc.constant("ada@example.com"), fc.constant(`${"a".repeat(250)}@example.com`));

/** JSON bodies around the registration and refresh shapes, plus arbitrary JSON and non-JSON text and bytes. */
const jsonBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc
    .record(
      {
        type: fc.oneof(fc.constant("service_auth"), fc.jsonValue()),
        login_hint: fc.oneof(loginHint, fc.jsonValue()),
        client_name: fc.oneof(fc.string({ maxLength: 130 }), fc.string({ unit: "binary", maxLength: 20 }), hostileString(20), fc.jsonValue()),
        scopes: fc.oneof(fc.array(scopeValue, { maxLength: 3 }), fc.jsonValue()),
        claim_token: fc.oneof(fc.string(), fc.constant(`clm_${"a".repeat(43)}`), hostileString(), fc.jsonValue()),
        email: fc.oneof(loginHint, hostileString(), fc.jsonValue()),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary" }),
  fc.uint8Array({ maxLength: 64 }),
);

const formKey = fc.oneof(fc.constantFrom("grant_type", "claim_token", "assertion", "resource", "token", "token_type_hint", "client_id"), fc.string({ maxLength: 12 }));
const formValue = fc.oneof(
  fc.constantFrom(CLAIM_GRANT, JWT_BEARER_GRANT, "authorization_code", "http://localhost/api", `clm_${"b".repeat(43)}`, `aca_${"c".repeat(43)}`, "eyJhbGciOiJub25lIn0.e30."),
  fc.string({ unit: "binary", maxLength: 40 }),
  hostileString(),
);
/** Form bodies: field lists (with repeats), raw text and raw bytes. */
const formBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.array(fc.tuple(formKey, formValue), { maxLength: 6 }).map((pairs) => new URLSearchParams(pairs).toString()),
  fc.string({ unit: "binary" }),
  fc.uint8Array({ maxLength: 64 }),
);

async function send(path: string, body: string | Uint8Array, contentType: string): Promise<Response> {
  const headers: Record<string, string> = { "X-Forwarded-For": freshIp() };
  if (contentType) headers["Content-Type"] = contentType;
  return fetch(`${base}${path}`, { method: "POST", headers, body: typeof body === "string" ? body : new Uint8Array(body) });
}

async function checkRefusal(res: Response): Promise<void> {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.headers.get("content-type")).toBe("application/json");
  const parsed = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(["error", "error_description"]);
}

describe("no input gives a 500 or writes anything", () => {
  for (const path of ["/agent/identity", "/agent/identity/claim"]) {
    it(`POST ${path} (strict JSON)`, async () => {
      const before = await rowCounts();
      let created = 0;
      await fc.assert(
        fc.asyncProperty(jsonBody, fc.constantFrom(...CONTENT_TYPES), async (body, contentType) => {
          const res = await send(path, body, contentType);
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) {
            // Only a well-formed registration succeeds (a refresh cannot: no claim token is known).
            expect(path).toBe("/agent/identity");
            created++;
            await res.arrayBuffer();
            return;
          }
          await checkRefusal(res);
        }),
        { numRuns: 150 },
      );
      const after = await rowCounts();
      // Each accepted registration writes one registration, one attempt and one audit event; refusals write nothing.
      expect(after).toEqual({ ...before, registrations: before.registrations + created, attempts: before.attempts + created, audit: before.audit + created });
    });
  }

  for (const path of ["/oauth2/token", "/oauth2/revoke"]) {
    it(`POST ${path} (form)`, async () => {
      const before = await rowCounts();
      await fc.assert(
        fc.asyncProperty(formBody, fc.constantFrom(...CONTENT_TYPES), async (body, contentType) => {
          const res = await send(path, body, contentType);
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) {
            // Only revocation answers 200 for an unknown token, with an empty body.
            expect(path).toBe("/oauth2/revoke");
            expect(await res.text()).toBe("");
            return;
          }
          await checkRefusal(res);
        }),
        { numRuns: 150 },
      );
      expect(await rowCounts()).toEqual(before);
    });
  }
});
