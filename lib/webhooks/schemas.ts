// The webhook event catalogue (content/docs/webhooks.md): one zod schema per event type, and the JSON Schema
// published for each, built from the same zod schema. Payloads never carry a token, claim token, attempt
// token, user code or e-mail address: receivers learn who (member_id) and what (registration, client, scopes).
import { z } from "zod";
import { SCOPES } from "@/lib/schemas/service-auth";

export const WEBHOOK_EVENT_TYPES = [
  "delegation.requested",
  "delegation.approved",
  "delegation.denied",
  "delegation.cancelled",
  "delegation.expired",
  "token.revoked",
  "delegation.reported",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const common = {
  registration_id: z.string().describe("The registration (the agent's request) this event is about."),
  member_id: z.string().describe("The member whose account the registration names."),
  client_name: z.string().nullable().describe("The name the agent gave when it registered, or null."),
  scopes: z.array(z.enum(SCOPES)).describe("The scopes the agent asked for (approved scopes for approved delegations)."),
  agent_origin: z
    .string()
    .optional()
    .describe("The agent's origin, verified from its Web Bot Auth signature on the registration (issue 44); absent when the registration was unsigned."),
};

const dataSchemas = {
  "delegation.requested": z.strictObject({ ...common, claim_expires_at: z.iso.datetime().describe("When the request ends unless approved.") }),
  "delegation.approved": z.strictObject({ ...common, delegation_id: z.string().describe("The delegation the approval created.") }),
  "delegation.denied": z.strictObject({
    ...common,
    reason: z
      .enum(["refused", "too_many_wrong_codes", "reported", "too_many_wrong_confirmation_codes"])
      .describe(
        'refused: the member chose Deny; too_many_wrong_codes: the fifth wrong code closed the attempt; reported: the member chose "I didn\'t start this" (a delegation.reported event follows); too_many_wrong_confirmation_codes: the agent sent a wrong confirmation code three times.',
      ),
  }),
  "delegation.cancelled": z.strictObject({
    ...common,
    delegation_id: z.string(),
    revoked_tokens: z.number().int().min(0).describe("Access tokens revoked with it."),
    reason: z
      .literal("agent_blocked")
      .optional()
      .describe("agent_blocked: the operator blocked the agent's verified origin, or members' reports did; absent when the member revoked it."),
  }),
  "delegation.expired": z.strictObject({ ...common }),
  "token.revoked": z.strictObject({ ...common, delegation_id: z.string().describe("The delegation the revoked token belonged to.") }),
  "delegation.reported": z.strictObject({
    ...common,
    report_id: z.string().describe("The report, as `npm run agents:reports` lists it."),
    origin_blocked: z.boolean().describe("Whether this report blocked the agent's verified origin (enough distinct members reported it within 24 hours)."),
  }),
} as const satisfies Record<WebhookEventType, z.ZodType>;

export type WebhookEventData<T extends WebhookEventType> = z.infer<(typeof dataSchemas)[T]>;

function envelope<T extends WebhookEventType>(type: T) {
  return z.strictObject({
    type: z.literal(type),
    timestamp: z.iso.datetime().describe("When the change happened (UTC)."),
    data: dataSchemas[type],
  });
}

export const webhookPayloadSchemas: { [T in WebhookEventType]: ReturnType<typeof envelope<T>> } = {
  "delegation.requested": envelope("delegation.requested"),
  "delegation.approved": envelope("delegation.approved"),
  "delegation.denied": envelope("delegation.denied"),
  "delegation.cancelled": envelope("delegation.cancelled"),
  "delegation.expired": envelope("delegation.expired"),
  "token.revoked": envelope("token.revoked"),
  "delegation.reported": envelope("delegation.reported"),
};

/** The JSON Schema (draft 2020-12) of one event type's payload, as published in the docs. */
export function webhookJsonSchema(type: WebhookEventType): Record<string, unknown> {
  // zod adds a long regular expression to every date-time string; the format says the same, readably.
  const schema = z.toJSONSchema(webhookPayloadSchemas[type], {
    override: (context) => {
      if (context.jsonSchema.format === "date-time") delete context.jsonSchema.pattern;
    },
  });
  return { $id: `urn:agent-gate:webhook:${type}`, ...schema } as Record<string, unknown>;
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
