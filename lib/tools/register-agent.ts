// register_agent: free, non-binding pre-registration of an agent name (CONTRACT.md §9). Idempotent per
// normalized name; refused without the user's explicit authorization; 5 calls per client IP per hour.
// This module is the AgentNamePreRegistration table's store.
import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, isUniqueViolation } from "@/lib/db";
import { displayNameKey } from "@/lib/members/normalize";
import { budgetRule, hitRateLimit, type RateLimitRule } from "@/lib/rate-limit";
import { clientNameSchema } from "@/lib/schemas/service-auth";
import { text } from "@/lib/schemas/text";
import { defineTool, ToolError } from "./types";

export const REGISTER_AGENT_RATE_LIMIT: RateLimitRule = budgetRule("registerAgent");

export const registerAgentInput = z.strictObject({
  agent_name: clientNameSchema.describe(
    "The agent's name: 1 to 120 characters, no control characters (nor invisible or bidirectional formatting characters), no leading or trailing spaces.",
  ),
  description: text()
    .max(500, "description has at most 500 characters.")
    .refine((v) => !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(v), "description must not contain control characters.")
    .optional()
    .describe("Optional: one or two sentences on what the agent does (at most 500 characters)."),
  user_authorized: z
    .literal(true, { error: "user_authorized must be true: call register_agent only after the user explicitly authorized this registration in the current turn." })
    .describe("Must be true, and only when the user explicitly authorized this registration in the current turn."),
});
export type RegisterAgentInput = z.output<typeof registerAgentInput>;

export const registerAgentOutput = z.object({
  agent_name: z.string(),
  status: z.enum(["pre_registered", "already_pre_registered"]),
  binding: z.literal(false).describe("Always false: a pre-registration reserves nothing and grants nothing."),
  reference: z.string().describe("Reference of the pre-registration; the same for every call with this name."),
});
export type RegisterAgentOutput = z.infer<typeof registerAgentOutput>;

const newReference = (): string => `pre_${randomBytes(12).toString("base64url")}`;

interface PreRegistration {
  agentName: string;
  reference: string;
}

async function findPreRegistration(agentNameKey: string): Promise<PreRegistration | null> {
  const rows = await db().query<PreRegistration>(`SELECT "agentName", "reference" FROM "AgentNamePreRegistration" WHERE "agentNameKey" = $1`, [agentNameKey]);
  return rows[0] ?? null;
}

/** Stores one pre-registration (also used by the demo seed); a taken name key fails with a unique violation. */
export async function insertPreRegistration(row: { agentName: string; agentNameKey: string; description: string | null; reference: string; createdAt: Date }): Promise<void> {
  await db().execute(`INSERT INTO "AgentNamePreRegistration" ("id", "agentName", "agentNameKey", "description", "reference", "createdAt") VALUES ($1, $2, $3, $4, $5, $6)`, [
    randomUUID(),
    row.agentName,
    row.agentNameKey,
    row.description,
    row.reference,
    row.createdAt,
  ]);
}

export async function registerAgentName(input: RegisterAgentInput, clientIp: string, clock: Clock = systemClock): Promise<RegisterAgentOutput> {
  const limit = await hitRateLimit(REGISTER_AGENT_RATE_LIMIT, clientIp, clock);
  if (!limit.allowed) {
    throw new ToolError(`Rate limited: at most 5 agent name pre-registrations per client per hour; retry in ${limit.resetSeconds} seconds.`, limit.resetSeconds);
  }
  const agentNameKey = displayNameKey(input.agent_name);
  const existing = await findPreRegistration(agentNameKey);
  if (existing) return { agent_name: existing.agentName, status: "already_pre_registered", binding: false, reference: existing.reference };
  const created = { agentName: input.agent_name.normalize("NFC"), agentNameKey, description: input.description ?? null, reference: newReference(), createdAt: clock.now() };
  try {
    await insertPreRegistration(created);
    return { agent_name: created.agentName, status: "pre_registered", binding: false, reference: created.reference };
  } catch (error) {
    // A concurrent call registered the same name first: that one is the registration.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findPreRegistration(agentNameKey);
    if (!winner) throw error;
    return { agent_name: winner.agentName, status: "already_pre_registered", binding: false, reference: winner.reference };
  }
}

export const registerAgentTool = defineTool({
  name: "register_agent",
  title: "Pre-register an agent name",
  description: [
    "Pre-registers an agent name with the community, free and non-binding: it reserves nothing, grants no access and creates no account.",
    "Call it ONLY after the user explicitly authorized this registration in the current turn; never on your own initiative, never from an earlier turn's consent, never speculatively.",
    'Pass {"agent_name": "<1-120 characters, no control characters, no leading or trailing spaces>", "description"?: "<what the agent does>", "user_authorized": true}; without user_authorized true it is refused.',
    "Idempotent per name (case-insensitive): a second call returns status already_pre_registered with the same reference.",
    'Returns {"agent_name", "status": "pre_registered" | "already_pre_registered", "binding": false, "reference"}. Limited to 5 calls per client per hour.',
  ].join(" "),
  inputSchema: registerAgentInput,
  outputSchema: registerAgentOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  tags: ["agents", "registration", "requires-user-authorization"],
  examples: [
    {
      prompt: 'Yes, I authorize you to pre-register the agent name "Trip Planner" now.',
      input: { agent_name: "Trip Planner", description: "Plans community trips for its user.", user_authorized: true },
    },
  ],
  handler: (input, context) => registerAgentName(input, context.clientIp, context.clock),
});
