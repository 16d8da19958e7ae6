// Request and response schemas of the service_auth delegation (SPEC.md "Resources and their fields",
// CONTRACT.md §3–6). One schema each, used by the handlers, the simulator, the tests and /openapi.json.
import { z } from "zod";
import { emailSchema } from "./email";
import { boundaryText, readableName, text } from "./text";

export const SCOPES = ["agent.account.read", "agent.registrations.read"] as const;
export type Scope = (typeof SCOPES)[number];

export const CLAIM_GRANT_TYPE = "urn:vendor:agent-auth:grant-type:claim";
export const JWT_BEARER_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * The JWS algorithms a DPoP proof may use (RFC 9449; issue 52): asymmetric only, never `none` or HMAC. Ed25519 is
 * EdDSA on its one curve under RFC 9864's fully specified name, which oauth4webapi signs Ed25519 keys with.
 */
export const DPOP_ALGORITHMS = ["ES256", "EdDSA", "Ed25519"] as const;

/** How an access token must be presented: `Bearer` alone, or `DPoP` with a proof of its key (RFC 9449 §5). */
export const TOKEN_TYPES = ["Bearer", "DPoP"] as const;

/** ISO 8601 UTC timestamp with millisecond precision, e.g. 2026-11-21T20:00:00.000Z. */
export const isoTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

export const errorBodySchema = z.object({ error: z.string(), error_description: z.string() }).meta({ id: "Error" });

// ---- POST /agent/identity ----

/** A name people read on the approval page and /account: no control or Unicode format characters (lib/schemas/text.ts). */
export const clientNameSchema = readableName(120);

export const registrationRequestSchema = z
  .strictObject({
    type: z.literal("service_auth"),
    login_hint: boundaryText(emailSchema),
    client_name: clientNameSchema.optional(),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .refine((list) => new Set(list).size === list.length, "scopes must be unique")
      .refine((list) => list.every((s, i) => i === 0 || SCOPES.indexOf(list[i - 1]!) < SCOPES.indexOf(s)), "scopes must be in canonical order")
      .optional(),
  })
  .meta({ id: "RegistrationRequest" });
export type RegistrationRequest = z.infer<typeof registrationRequestSchema>;

export const claimAttemptObjectSchema = z
  .object({
    user_code: z.string().regex(/^\d{8}$/),
    expires_in: z.number().int(),
    verification_uri: z.string().url(),
    interval: z.number().int(),
  })
  .meta({ id: "ClaimAttempt" });

export const registrationResponseSchema = z
  .object({
    registration_id: z.string().uuid(),
    registration_type: z.literal("service_auth"),
    claim_url: z.string().url(),
    claim_token: z.string().startsWith("clm_"),
    claim_token_expires: isoTimestamp,
    post_claim_scopes: z.array(z.enum(SCOPES)),
    claim: claimAttemptObjectSchema,
  })
  .meta({ id: "Registration" });
export type RegistrationResponse = z.infer<typeof registrationResponseSchema>;

// ---- POST /agent/identity/claim ----

export const claimRefreshRequestSchema = z.strictObject({ claim_token: text().max(512), email: text().max(254) }).meta({ id: "ClaimRefreshRequest" });

export const claimRefreshResponseSchema = z
  .object({
    registration_id: z.string().uuid(),
    claim_attempt_id: z.string().uuid(),
    status: z.literal("initiated"),
    expires_at: isoTimestamp,
    claim_attempt: claimAttemptObjectSchema,
  })
  .meta({ id: "ClaimRefresh" });
export type ClaimRefreshResponse = z.infer<typeof claimRefreshResponseSchema>;

// ---- POST /oauth2/token (form-encoded; unrecognized fields are ignored, CONTRACT.md §5) ----

export const claimGrantRequestSchema = z
  .object({
    grant_type: z.literal(CLAIM_GRANT_TYPE),
    claim_token: text().min(1).max(512),
    // Issue 53 (RFC 10027 §6.1.16): ignored unless the approval waits for it (400 confirmation_required).
    confirmation_code: text()
      .min(1)
      .max(32)
      .optional()
      .describe(
        "The 6-digit confirmation code the account owner was shown when they approved (spaces and dashes are ignored). Send it only after a poll answered confirmation_required; a wrong code is invalid_grant, and the third wrong code denies the request.",
      ),
  })
  .meta({ id: "ClaimGrantRequest" });

export const jwtBearerGrantRequestSchema = z
  .object({ grant_type: z.literal(JWT_BEARER_GRANT_TYPE), assertion: text().min(1).max(8192), resource: text().min(1).max(2048) })
  .meta({ id: "JwtBearerGrantRequest" });

export const tokenRequestSchema = z.discriminatedUnion("grant_type", [claimGrantRequestSchema, jwtBearerGrantRequestSchema]).meta({ id: "TokenRequest" });
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

// ---- POST /oauth2/revoke (form-encoded; token_type_hint accepted and ignored) ----

export const revokeRequestSchema = z.object({ token: text().min(1).max(4096), token_type_hint: text().max(100).optional() }).meta({ id: "RevokeRequest" });

/** Issue 52 item 5: present when the token is bound to a Web Bot Auth agent; every use must be signed by a key of it. */
const agentOriginMember = z
  .string()
  .url()
  .optional()
  .describe(
    "Present when the token is bound to this Web Bot Auth agent origin (the registration was signed): every own-account read with it must be signed by a key of that origin's key directory.",
  );

const tokenTypeMember = z
  .enum(TOKEN_TYPES)
  .describe("Bearer, or DPoP when the token request carried a DPoP proof: the token is then bound to that key and every use must carry a proof of it (RFC 9449).");

export const claimGrantTokenResponseSchema = z
  .object({
    access_token: z.string().startsWith("aca_"),
    token_type: tokenTypeMember,
    expires_in: z.literal(3600),
    scope: z.string(),
    identity_assertion: z.string(),
    assertion_expires: isoTimestamp,
    agent_origin: agentOriginMember,
  })
  .meta({ id: "ClaimGrantTokenResponse" });
export type ClaimGrantTokenResponse = z.infer<typeof claimGrantTokenResponseSchema>;

export const jwtBearerTokenResponseSchema = z
  .strictObject({
    access_token: z.string().startsWith("aca_"),
    token_type: tokenTypeMember,
    expires_in: z.literal(3600),
    scope: z.string(),
    agent_origin: agentOriginMember,
  })
  .meta({ id: "JwtBearerTokenResponse" });
export type JwtBearerTokenResponse = z.infer<typeof jwtBearerTokenResponseSchema>;

// ---- Own-account routes (CONTRACT.md §6) ----

export const REGISTRATION_STATUSES = ["pending", "active", "denied", "expired", "cancelled"] as const;

export const ownAccountResponseSchema = z
  .object({
    account_id: z.string(),
    email: z.string(),
    email_verified: z.literal(true),
    authorization: z.object({
      registration_id: z.string().uuid(),
      registration_type: z.literal("service_auth"),
      client_name: z
        .string()
        .nullable()
        .describe(
          'The name the agent gave at registration, or null: 1 to 120 characters with no control characters and no Unicode format characters (bidirectional embeddings, overrides and isolates, LRM/RLM, zero-width characters, word joiners, BOM), no leading or trailing whitespace. It was chosen by the agent, not checked: display it isolated (e.g. <bdi dir="auto">).',
        ),
      scope: z.string(),
      resource: z.string().url(),
      token_expires_at: isoTimestamp,
    }),
  })
  .meta({ id: "OwnAccount" });
export type OwnAccountResponse = z.infer<typeof ownAccountResponseSchema>;

export const ownRegistrationsResponseSchema = z
  .object({
    registrations: z.array(z.object({ id: z.string().uuid(), registration_type: z.literal("service_auth"), status: z.enum(REGISTRATION_STATUSES) })).max(1),
  })
  .meta({ id: "OwnRegistrations" });
export type OwnRegistrationsResponse = z.infer<typeof ownRegistrationsResponseSchema>;
