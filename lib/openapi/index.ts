// /openapi.json: OpenAPI 3.1 generated from the same zod schemas the handlers use (zod 4's JSON Schema
// output), so the description cannot drift from the code. One entry per supported direct JSON read.
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import {
  askResponseSchema,
  batchRequestSchema,
  batchResponseSchema,
  BATCH_MAX_BYTES,
  BATCH_MAX_ITEMS,
  QUESTION_MAX,
  QUESTION_MIN,
  simulateRequestSchema,
  simulateResponseSchema,
} from "@/lib/schemas/public-read";
import { livenessResponseSchema, readinessResponseSchema } from "@/lib/schemas/operations";
import { errorBodySchema, ownAccountResponseSchema, ownRegistrationsResponseSchema, SCOPES, tokenRequestSchema } from "@/lib/schemas/service-auth";

type Schema = z.ZodType;

interface ResponseSpec {
  description: string;
  schema?: Schema;
  /** Extra media types with a plain string body (e.g. text/markdown). */
  textTypes?: string[];
  headers?: Record<string, string>;
}

export interface OperationSpec {
  method: "get" | "post";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  scope?: (typeof SCOPES)[number];
  /** Issue 52: a DPoP-bound token is accepted too (the DPoP scheme and header, RFC 9449 §7). */
  dpop?: boolean;
  /** An operator endpoint behind its own bearer secret (METRICS_TOKEN), not an agent's token. */
  operatorSecret?: boolean;
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  requestBody?: { schema: Schema; description: string };
  responses: Record<string, ResponseSpec>;
}

const error = (description: string, headers?: Record<string, string>): ResponseSpec => ({ description, schema: errorBodySchema, headers });
const WWW_AUTHENTICATE = {
  "WWW-Authenticate":
    'The RFC 6750 Bearer challenge (realm, error, scope or resource_metadata); for a DPoP-bound token or the DPoP scheme, the RFC 9449 DPoP challenge (error, algs="ES256 EdDSA Ed25519"); for a token bound to a Web Bot Auth agent sent unsigned, a Signature challenge.',
};
const DPOP_NONCE = { "DPoP-Nonce": "With error use_dpop_nonce (a proof whose iat is outside the window): the nonce to put in the next proof (RFC 9449 §8)." };
const RATE_LIMIT = {
  "RateLimit-Limit": "Requests allowed per window.",
  "RateLimit-Remaining": "Requests left in the current window.",
  "RateLimit-Reset": "Seconds until the window resets.",
};

function ownAccountOperation(path: string, operationId: string, summary: string, scope: (typeof SCOPES)[number], schema: Schema, description: string): OperationSpec {
  return {
    method: "get",
    path,
    operationId,
    summary,
    description: `${description} Needs an access token with scope \`${scope}\` in the Authorization header only; no query parameters and no body. A Bearer token is sent as \`Authorization: Bearer\`; a DPoP-bound token (token_type DPoP) as \`Authorization: DPoP\` with a DPoP proof of its key (with \`ath\`) in the \`DPoP\` header; a token bound to a Web Bot Auth agent (\`agent_origin\` in its token response) only on a request signed by a key of that origin.`,
    tags: ["own account"],
    scope,
    dpop: true,
    responses: {
      "200": { description: "The member's own data.", schema },
      "400": error('Malformed request: query parameters or a body (challenge error="invalid_request").', WWW_AUTHENTICATE),
      "401": error(
        "No credential; an invalid, expired or revoked token; a DPoP-bound token without a valid proof of its key (invalid_token, invalid_dpop_proof, use_dpop_nonce); a token bound to a Web Bot Auth agent without a valid signature of that agent.",
        { ...WWW_AUTHENTICATE, ...DPOP_NONCE },
      ),
      "403": error('The token lacks this route\'s scope (challenge error="insufficient_scope").', WWW_AUTHENTICATE),
      "405": error("Only GET and HEAD are supported."),
      "503": error("The database is unreachable; retry after Retry-After seconds.", { "Retry-After": "Seconds to wait." }),
    },
  };
}

/** Every supported direct JSON read. A test fails when a JSON route exists without an entry here. */
export const OPERATIONS: OperationSpec[] = [
  ownAccountOperation(
    "/api/v1/agent/account",
    "getOwnAccount",
    "The approving member's own account",
    "agent.account.read",
    ownAccountResponseSchema,
    "The verified account id and e-mail and the current authorization envelope.",
  ),
  ownAccountOperation(
    "/api/v1/agent/registrations",
    "getOwnRegistrations",
    "The registration behind the token",
    "agent.registrations.read",
    ownRegistrationsResponseSchema,
    "Zero or one registration: the one the token belongs to.",
  ),
  {
    method: "get",
    path: "/ask",
    operationId: "ask",
    summary: "Deterministic answers from the published documentation",
    description: `Send exactly one of \`query\` (canonical) or \`q\` (alias), ${QUESTION_MIN} to ${QUESTION_MAX} characters after trimming, without NUL characters. The same question always gets the same bytes. \`Accept: text/markdown\` returns markdown.`,
    tags: ["public read"],
    query: [
      { name: "query", description: "The question (canonical parameter).", schema: { type: "string", minLength: QUESTION_MIN, maxLength: QUESTION_MAX } },
      { name: "q", description: "Alias of query; send only one of them.", schema: { type: "string", minLength: QUESTION_MIN, maxLength: QUESTION_MAX } },
    ],
    responses: {
      "200": { description: "Ranked answers.", schema: askResponseSchema, textTypes: ["text/markdown"] },
      "400": error("Neither or both parameters, or a question of the wrong length."),
      "405": error("Only GET and HEAD are supported."),
    },
  },
  {
    method: "post",
    path: "/api/v1/batch",
    operationId: "batch",
    summary: "A bounded public-read batch",
    description: `Up to ${BATCH_MAX_ITEMS} items (\`content.list\`, \`docs.ask\`) run in order; a body of at most ${BATCH_MAX_BYTES} bytes; items not started within 10 seconds are \`skipped\`. 10 requests per 60 seconds per client IP. The body is strict JSON: a member name repeated in one object, or a string that is not well-formed Unicode (a lone surrogate), makes the whole request \`invalid_request\`; NUL characters are refused in every string.`,
    tags: ["public read"],
    requestBody: { schema: batchRequestSchema, description: "The items to run." },
    responses: {
      "200": { description: "One result per item, in request order (mixed outcomes included).", schema: batchResponseSchema, headers: RATE_LIMIT },
      "400": error("Envelope error: not JSON, not {items}, 0 or more than 10 items, duplicate or missing ids, unknown members; nothing ran.", RATE_LIMIT),
      "405": error("Only POST is supported."),
      "413": error(`The body is larger than ${BATCH_MAX_BYTES} bytes.`),
      "429": error("Rate limited; retry after Retry-After seconds.", { ...RATE_LIMIT, "Retry-After": "Seconds to wait." }),
    },
  },
  {
    method: "post",
    path: "/api/v1/sandbox/simulate",
    operationId: "simulate",
    summary: "A no-write contract simulator",
    description:
      "Answers with the production response schemas filled with fixed synthetic values. It performs no reads, authorization, signing or writes; the same scenario always gets the same bytes. The body is strict JSON: a repeated member name is \`invalid_request\`.",
    tags: ["public read"],
    requestBody: { schema: simulateRequestSchema, description: "The scenario to model." },
    responses: {
      "200": { description: "The modelled response.", schema: simulateResponseSchema },
      "400": error("Not strict JSON {scenario} with a known scenario."),
      "405": error("Only POST is supported."),
      "429": error("Rate limited: the caller's simulator budget is spent; retry after Retry-After seconds. Nothing ran.", { "Retry-After": "Seconds to wait." }),
    },
  },
  // Operator endpoints (issue #17): for load balancers, orchestrators and Prometheus, not for agents; no agent catalog lists them.
  {
    method: "get",
    path: "/healthz",
    operationId: "alive",
    summary: "Liveness: the process answers",
    description: "200 while the process answers; touches no database. `Cache-Control: no-store`; HEAD is answered too.",
    tags: ["operations"],
    responses: {
      "200": { description: "Alive.", schema: livenessResponseSchema },
      "405": error("Only GET and HEAD are supported."),
    },
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "ready",
    summary: "Readiness: database, migrations, signing keys",
    description:
      "200 when the database answers within 1 second, every migration is applied and the signing keys load; 503 with the failing check marked `fail`. Cheap enough to probe every second. `Cache-Control: no-store`; HEAD is answered too.",
    tags: ["operations"],
    responses: {
      "200": { description: "Ready.", schema: readinessResponseSchema },
      "503": { description: "Not ready; `checks` names what failed.", schema: readinessResponseSchema },
      "405": error("Only GET and HEAD are supported."),
    },
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics",
    description:
      "The Prometheus text exposition format (requests and durations per route template and status, token grants by outcome, approvals and denials, rate-limit refusals, database errors, event-loop lag, heap). Off (404) unless METRICS_TOKEN is set; then it needs `Authorization: Bearer <METRICS_TOKEN>`.",
    tags: ["operations"],
    operatorSecret: true,
    responses: {
      "200": { description: "The metrics.", textTypes: ["text/plain"] },
      "401": error("A missing or wrong METRICS_TOKEN.", { "WWW-Authenticate": 'Bearer realm="operations"' }),
      "404": error("Metrics are off (METRICS_TOKEN is not set)."),
      "405": error("Only GET and HEAD are supported."),
    },
  },
];

type JsonSchemaMap = Record<string, Record<string, unknown>>;

/**
 * JSON Schemas of every registered schema, plus every schema with a global id nested inside them: zod puts
 * those under a "__shared" entry otherwise, whose refs are not valid component references. zod's `override`
 * hook hands over each schema it converts, nested ones included, so those are found and registered before the
 * next pass.
 */
function componentSchemas(registry: z.core.$ZodRegistry<{ id: string }>): JsonSchemaMap {
  for (;;) {
    const nested = new Map<string, z.core.$ZodType>();
    const { schemas } = z.toJSONSchema(registry, {
      target: "draft-2020-12",
      io: "output",
      uri: (id) => `#/components/schemas/${id}`,
      unrepresentable: "any",
      override: ({ zodSchema }) => {
        const id = z.globalRegistry.get(zodSchema)?.id;
        if (id && !registry.has(zodSchema)) nested.set(id, zodSchema);
      },
    }) as { schemas: JsonSchemaMap };
    if (nested.size === 0) {
      for (const schema of Object.values(schemas)) {
        delete schema.$schema;
        delete schema.$id;
      }
      return schemas;
    }
    // In "__shared"'s order, so the components come out in the order zod met them.
    const shared = Object.keys((schemas.__shared as { $defs?: JsonSchemaMap } | undefined)?.$defs ?? {});
    const ids = [...nested.keys()].sort((a, b) => shared.indexOf(a) - shared.indexOf(b));
    for (const id of ids) registry.add(nested.get(id)!, { id });
  }
}

function schemaName(schema: Schema): string {
  const meta = z.globalRegistry.get(schema) as { id?: string } | undefined;
  if (!meta?.id) throw new Error("Every schema in the OpenAPI document needs .meta({ id })");
  return meta.id;
}

/** The OpenAPI 3.1 document for this service's BASE_URL and release mode. */
export function openApiDocument(): Record<string, unknown> {
  const base = getConfig().baseUrl;
  const publicAuth = isAuthDiscoveryPublic();
  const registry = z.registry<{ id: string }>();
  const ref = (schema: Schema) => {
    const id = schemaName(schema);
    if (!registry.has(schema)) registry.add(schema, { id });
    return { $ref: `#/components/schemas/${id}` };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(op.responses)) {
      const content: Record<string, unknown> = {};
      if (spec.schema) content["application/json"] = { schema: ref(spec.schema) };
      for (const type of spec.textTypes ?? []) content[type] = { schema: { type: "string" } };
      responses[status] = {
        description: spec.description,
        ...(Object.keys(content).length ? { content } : {}),
        ...(spec.headers ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])) } : {}),
      };
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      ...(op.scope
        ? { security: [{ agentBearer: [op.scope] }, ...(op.dpop ? [{ agentDPoP: [op.scope] }] : [])] }
        : op.operatorSecret
          ? { security: [{ operatorBearer: [] }] }
          : { security: [] }),
      ...(op.query ? { parameters: op.query.map((q) => ({ name: q.name, in: "query", required: false, description: q.description, schema: q.schema })) } : {}),
      ...(op.dpop ? { parameters: [{ $ref: "#/components/parameters/DPoP" }] } : {}),
      ...(op.requestBody
        ? { requestBody: { required: true, description: op.requestBody.description, content: { "application/json": { schema: ref(op.requestBody.schema) } } } }
        : {}),
      responses,
    };
  }

  // The token endpoint's form (its grants and fields, the claim grant's confirmation_code included) is published as a
  // component, though /oauth2/token is not one of the direct JSON reads above.
  ref(tokenRequestSchema);
  const components = componentSchemas(registry);
  const errorContent = { "application/json": { schema: { $ref: `#/components/schemas/${schemaName(errorBodySchema)}` } } };

  return {
    openapi: "3.1.1",
    info: {
      title: "Agent Gate REST API",
      version: "1.0.0",
      description: "Direct JSON reads of Agent Gate: the member's own account (delegated, read-only) and anonymous public reads built on the published documentation.",
    },
    servers: [{ url: base }],
    externalDocs: { description: "Documentation", url: `${base}/docs` },
    tags: [
      { name: "own account", description: "Read-only routes of the protected resource {base}/api, for the member who approved the agent." },
      {
        name: "public read",
        description: `Anonymous reads; no credential. The agent-to-agent endpoint ${base}/a2a (JSON-RPC, A2A 1.0 and 0.3.0, chosen by the A2A-Version header) is not listed here: its signed agent card ${base}/.well-known/agent-card.json describes it.`,
      },
      { name: "operations", description: "Operator endpoints (health probes, metrics); not for agents." },
    ],
    paths,
    components: {
      schemas: components,
      // Issue 44: every request may carry a Web Bot Auth signature (RFC 9421); see the docs page "Sign your agent's requests".
      headers: {
        Signature: { description: "RFC 9421 signature (Web Bot Auth profile: Ed25519, tag web-bot-auth).", schema: { type: "string" } },
        "Signature-Input": {
          description:
            'RFC 9421 signature parameters: tag="web-bot-auth", created, expires (at most 10 minutes apart), keyid (the key\'s JWK thumbprint), an optional nonce; covering @authority and signature-agent.',
          schema: { type: "string" },
        },
        "Signature-Agent": {
          description: `The agent's https origin, whose key directory (/.well-known/http-message-signatures-directory) holds the key: "https://agent.example", or sig1="https://agent.example" covered with key="sig1". Documentation: ${base}/docs/signing-agents.`,
          schema: { type: "string" },
        },
      },
      // Issue 52: the DPoP proof of a request that presents a DPoP-bound token (RFC 9449 §4, §7).
      parameters: {
        DPoP: {
          name: "DPoP",
          in: "header",
          required: false,
          description:
            "One DPoP proof (RFC 9449 §4): a JWS with typ dpop+jwt, alg ES256 or EdDSA, the public key in jwk, and the claims jti (never used twice), htm, htu (this URL without query), iat (at most 60 seconds old, 10 ahead, unless it carries a DPoP-Nonce of ours) and ath (the base64url SHA-256 of the access token). Required with Authorization: DPoP.",
          schema: { type: "string" },
        },
      },
      responses: {
        SignatureRefused: {
          description:
            "A Web Bot Auth signature was present but not accepted (POST /agent/identity): error invalid_signature, expired_signature, replayed_signature, unknown_key or directory_unavailable; nothing was written.",
          headers: { "WWW-Authenticate": { description: 'Signature realm="<host>", tag="web-bot-auth", error="<code>"', schema: { type: "string" } } },
          content: errorContent,
        },
        // Issue 53 (RFC 10027): the answers of the consent-phishing defences.
        SignatureRequired: {
          description:
            "POST /agent/identity without a Web Bot Auth signature where the operator accepts signed agents only (AGENT_SIGNATURE_REQUIRED): error signature_required; nothing was written.",
          headers: { "WWW-Authenticate": { description: 'Signature realm="<host>", tag="web-bot-auth"', schema: { type: "string" } } },
          content: errorContent,
        },
        AgentBlocked: {
          description:
            "POST /agent/identity signed by a verified agent origin that the operator, or members' reports, blocked: HTTP 403, error agent_blocked; nothing was written.",
          content: errorContent,
        },
        ConfirmationRequired: {
          description: `POST /oauth2/token with the claim grant (form ${schemaName(tokenRequestSchema)}): the account owner approved and was shown a 6-digit confirmation code; HTTP 400, error confirmation_required, until a poll carries confirmation_code. A wrong code is invalid_grant; the third wrong code denies the request (access_denied). ${base}/docs/confirmation-codes.`,
          content: errorContent,
        },
      },
      securitySchemes: {
        webBotAuth: {
          type: "apiKey",
          in: "header",
          name: "Signature",
          description: `Optional HTTP Message Signatures (RFC 9421) in the Web Bot Auth profile, with the Signature-Input and Signature-Agent headers: a verified agent is counted under its origin on the public reads and shown as verified to the member; ${base}/docs/signing-agents.`,
        },
        operatorBearer: { type: "http", scheme: "bearer", description: "The operator's METRICS_TOKEN." },
        agentDPoP: {
          type: "http",
          scheme: "DPoP",
          description: `A DPoP-bound access token (RFC 9449; token_type DPoP): the token request carried a DPoP proof, and every use carries a proof of the same key in the DPoP header; ${base}/docs/dpop.`,
        },
        agentBearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "opaque aca_ token",
          description: publicAuth
            ? `An access token from the service_auth delegation (${base}/auth.md); protected resource metadata at ${base}/.well-known/oauth-protected-resource/api.`
            : "An access token from the service_auth delegation.",
        },
      },
    },
  };
}
