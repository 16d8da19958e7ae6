// POST /api/v1/sandbox/simulate (SPEC.md, CONTRACT.md §9): production response schemas filled with fixed
// synthetic values. It imports no database, key or token module on purpose: nothing is read from the database, signed
// or written, and it answers even while the database is down: its budget is counted in lib/shared-state (per caller, a
// verified agent under its origin, issue 44), whose stores decide without waiting on the database (the postgres store
// syncs in the background; Redis falls back to this instance's memory). Its texts are the server's own: the token
// endpoint's error descriptions, and the batch scenario's items answered by the same docs functions and argument
// schema the batch runs (issue 51).
import { absoluteUrl, getConfig } from "@/lib/config";
import { publicCaller } from "@/lib/agent-identity";
import { readJsonObject } from "@/lib/http/body";
import { callerKey } from "@/lib/http/client-ip";
import { chargeCaller } from "@/lib/rate-limit/charge";
import { textReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { errorBody, errorReply, payloadTooLargeReply, rateLimitedReply } from "@/lib/http/errors";
import {
  batchResponseSchema,
  contentListArgumentsSchema,
  docsAskArgumentsSchema,
  simulateRequestSchema,
  type SimulateResponse,
  type SimulatorScenario,
} from "@/lib/schemas/public-read";
import { describeIssue } from "@/lib/schemas/issues";
import { claimGrantTokenResponseSchema, errorBodySchema, registrationResponseSchema, SCOPES } from "@/lib/schemas/service-auth";
import { askDocs, listContent } from "@/lib/docs/ask";
import { TOKEN_ERROR_DESCRIPTIONS } from "@/lib/service-auth/token-errors";
import { SIMULATE_MAX_BYTES } from "./limits";

export { SIMULATE_MAX_BYTES };

// Synthetic values: recognisably fake, never credentials (they are not stored anywhere).
const REGISTRATION_ID = "00000000-0000-4000-8000-000000000001";
const CLAIM_TOKEN = "clm_SIMULATED_claim_token_not_a_credential_0000000000000";
const ATTEMPT_TOKEN = "cat_SIMULATED_attempt_token_not_a_credential_000000000000";
const ACCESS_TOKEN = "aca_SIMULATED_access_token_not_a_credential_0000000000000";

const base64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT-shaped string with an obviously fake signature: the simulator never signs. */
function syntheticAssertion(): string {
  const header = { alg: "EdDSA", typ: "agent-identity+jwt", kid: "simulated" };
  const payload = {
    iss: getConfig().baseUrl,
    aud: getConfig().baseUrl,
    sub: "simulated-account",
    iat: 1767268800,
    exp: 1767355200,
    jti: "00000000-0000-4000-8000-000000000003",
    scope: SCOPES.join(" "),
    registration_id: REGISTRATION_ID,
    client_name: "Example Agent",
  };
  return `${base64url(header)}.${base64url(payload)}.${Buffer.from("simulated-signature-not-valid").toString("base64url")}`;
}

/** The batch's refusal of docs.ask arguments, as the batch words it (its argument schema and issue text). */
function refusalOf(args: unknown): string {
  const parsed = docsAskArgumentsSchema.safeParse(args);
  return parsed.success ? "arguments are invalid." : describeIssue(parsed.error, "arguments");
}

/**
 * The items of the batch scenario, as a batch of them answers (tests/http/simulator.test.ts sends it): the first three
 * run, the fourth is shown as an item the deadline skipped.
 */
export const SIMULATED_BATCH_ITEMS = [
  { id: "list-guides", operation: "content.list", arguments: { type: "guide", limit: 1 } },
  { id: "q-scopes", operation: "docs.ask", arguments: { query: "which scopes exist", top_k: 1 } },
  { id: "bad-item", operation: "docs.ask", arguments: { query: "x" } },
  { id: "late-item", operation: "content.list", arguments: {} },
] as const;

function scenarioAnswer(scenario: SimulatorScenario): SimulateResponse {
  switch (scenario) {
    case "agent_auth_challenge":
      return {
        scenario,
        models: { method: "POST", path: "/agent/identity", status: 200 },
        response: registrationResponseSchema.parse({
          registration_id: REGISTRATION_ID,
          registration_type: "service_auth",
          claim_url: absoluteUrl("/agent/identity/claim"),
          claim_token: CLAIM_TOKEN,
          claim_token_expires: "2026-01-02T12:00:00.000Z",
          post_claim_scopes: [...SCOPES],
          claim: {
            user_code: "12345678",
            expires_in: 600,
            verification_uri: absoluteUrl(`/agent/authorize?claim_attempt_token=${ATTEMPT_TOKEN}`),
            interval: 5,
          },
        }),
      };
    case "agent_auth_pending":
      return {
        scenario,
        models: { method: "POST", path: "/oauth2/token", status: 400 },
        response: errorBodySchema.parse(errorBody("authorization_pending", TOKEN_ERROR_DESCRIPTIONS.authorization_pending!)),
      };
    case "agent_auth_success":
      return {
        scenario,
        models: { method: "POST", path: "/oauth2/token", status: 200 },
        response: claimGrantTokenResponseSchema.parse({
          access_token: ACCESS_TOKEN,
          token_type: "Bearer",
          expires_in: 3600,
          scope: SCOPES.join(" "),
          identity_assertion: syntheticAssertion(),
          assertion_expires: "2026-01-02T12:00:00.000Z",
        }),
      };
    case "batch_mixed_result": {
      const [list, ask, bad, late] = SIMULATED_BATCH_ITEMS;
      return {
        scenario,
        models: { method: "POST", path: "/api/v1/batch", status: 200 },
        response: batchResponseSchema.parse({
          results: [
            { id: list.id, operation: list.operation, status: "ok", result: listContent(contentListArgumentsSchema.parse(list.arguments)) },
            { id: ask.id, operation: ask.operation, status: "ok", result: askDocs(ask.arguments.query, ask.arguments.top_k) },
            { id: bad.id, operation: bad.operation, status: "error", error: errorBody("invalid_request", refusalOf(bad.arguments)) },
            { id: late.id, operation: late.operation, status: "skipped" },
          ],
        }),
      };
    }
  }
}

/** The simulator's answer: always the same bytes for the same scenario. */
export function simulate(scenario: SimulatorScenario): string {
  // Key order is fixed by construction and every value is a constant: same scenario, same bytes.
  return JSON.stringify(scenarioAnswer(scenario));
}

const HEADERS = { "access-control-allow-origin": "*", "cache-control": "no-store" } as const;

export async function handleSimulateRequest(request: ApiRequest): Promise<ApiReply> {
  // Each request spends one unit of its caller's budget before its body is read; nothing runs after a refusal.
  const found = publicCaller(request, callerKey(request.headers));
  const charged = chargeCaller(found instanceof Promise ? await found : found, (key) => [{ budget: "simulate", key, cost: 1 }]);
  const { refused } = charged instanceof Promise ? await charged : charged;
  if (refused) return rateLimitedReply(refused.retryAfterSeconds, HEADERS);
  const body = await readJsonObject(request, SIMULATE_MAX_BYTES);
  if (!body.ok) {
    if (body.reason === "too_large") return payloadTooLargeReply(SIMULATE_MAX_BYTES);
    return errorReply("invalid_request", body.message, { headers: HEADERS });
  }
  const parsed = simulateRequestSchema.safeParse(body.value);
  if (!parsed.success) return errorReply("invalid_request", describeIssue(parsed.error, ""), { headers: HEADERS });
  return textReply(simulate(parsed.data.scenario), 200, { ...HEADERS, "content-type": "application/json" });
}
