// Writing webhook events: each function adds one event to the outbox inside the caller's transaction (lib/db
// joins it), so the event exists exactly when the change that causes it commits. Delivery happens later,
// off the request path (./delivery.ts). Payloads carry ids, the client's name and scopes: never a token,
// claim token, attempt token, user code or e-mail address (CONTRACT.md §6 shows the member's e-mail only to
// the member's own agent; a webhook receiver has no need for it).
import type { Clock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { SCOPES, type Scope } from "@/lib/schemas/service-auth";
import { findMemberByEmail } from "@/lib/members/store";
import { findDelegationOfRegistration } from "@/lib/grants/delegations";
import { findRegistration } from "@/lib/grants/registrations";
import type { WebhookEventData, WebhookEventType } from "./schemas";
import { insertEvent } from "./stores/events";

/** Adds an event to the outbox (inside the caller's transaction). */
export async function enqueueEvent<T extends WebhookEventType>(type: T, data: WebhookEventData<T>, clock: Clock): Promise<void> {
  const now = clock.now();
  await insertEvent({ type, payload: JSON.stringify({ type, timestamp: now.toISOString(), data }), now });
  deliverAfterResponse();
}

/** On Vercel (VERCEL=1), or where the tests' --test-webhook-after-response asks for it (the Vercel path under `npm start`). */
export function deliversAfterResponse(): boolean {
  return getConfig().vercel || getConfig().webhooks.afterResponse;
}

/**
 * On Vercel no loop runs between requests: ask Next to run a delivery pass once the response is sent
 * (after(), by then the transaction has committed); the cron route catches whatever this misses. Under the
 * Node server the in-process loop delivers instead.
 */
function deliverAfterResponse(): void {
  if (!deliversAfterResponse()) return;
  void (async () => {
    try {
      const [{ after }, { runDeliveryPass }] = await Promise.all([import("next/server"), import("./delivery")]);
      after(() => runDeliveryPass().then(() => undefined));
    } catch {
      // Outside a request (a script): the cron route delivers.
    }
  })();
}

function scopesOf(scope: string): Scope[] {
  const parts = scope.split(" ");
  return SCOPES.filter((s) => parts.includes(s));
}

/** `agent_origin` only for a signed registration (issue 44): unsigned payloads stay exactly as they were. */
function agentOriginOf(registration: { agentOrigin: string | null }): { agent_origin?: string } {
  return registration.agentOrigin === null ? {} : { agent_origin: registration.agentOrigin };
}

async function commonData(registrationId: string, memberId: string) {
  const registration = await findRegistration(registrationId);
  if (!registration) throw new Error("webhook event for a registration that does not exist");
  return {
    registration,
    data: { registration_id: registrationId, member_id: memberId, client_name: registration.clientName, scopes: scopesOf(registration.scope), ...agentOriginOf(registration) },
  };
}

async function delegationIdOf(registrationId: string): Promise<string> {
  const delegation = await findDelegationOfRegistration(registrationId);
  if (!delegation) throw new Error("webhook event for a registration without a delegation");
  return delegation.id;
}

/** A registration named an existing member (never called for an unknown e-mail). */
export async function webhookDelegationRequested(registrationId: string, memberId: string, clock: Clock): Promise<void> {
  const { registration, data } = await commonData(registrationId, memberId);
  await enqueueEvent("delegation.requested", { ...data, claim_expires_at: registration.claimExpiresAt.toISOString() }, clock);
}

export async function webhookDelegationApproved(registrationId: string, memberId: string, clock: Clock): Promise<void> {
  const { data } = await commonData(registrationId, memberId);
  await enqueueEvent("delegation.approved", { ...data, delegation_id: await delegationIdOf(registrationId) }, clock);
}

export type DenialReason = WebhookEventData<"delegation.denied">["reason"];

export async function webhookDelegationDenied(registrationId: string, memberId: string, reason: DenialReason, clock: Clock): Promise<void> {
  const { data } = await commonData(registrationId, memberId);
  await enqueueEvent("delegation.denied", { ...data, reason }, clock);
}

/** `reason` only when the member did not revoke it themselves (issue 53): a member's revocation keeps its payload. */
export async function webhookDelegationCancelled(
  registrationId: string,
  memberId: string,
  delegationId: string,
  revokedTokens: number,
  clock: Clock,
  reason?: "agent_blocked",
): Promise<void> {
  const { data } = await commonData(registrationId, memberId);
  await enqueueEvent("delegation.cancelled", { ...data, delegation_id: delegationId, revoked_tokens: revokedTokens, ...(reason ? { reason } : {}) }, clock);
}

/** The member reported a request they did not start (issue 53); sent after its delegation.denied. */
export async function webhookDelegationReported(registrationId: string, memberId: string, reportId: string, originBlocked: boolean, clock: Clock): Promise<void> {
  const { data } = await commonData(registrationId, memberId);
  await enqueueEvent("delegation.reported", { ...data, report_id: reportId, origin_blocked: originBlocked }, clock);
}

export async function webhookTokenRevoked(registrationId: string, memberId: string, clock: Clock): Promise<void> {
  const { data } = await commonData(registrationId, memberId);
  await enqueueEvent("token.revoked", { ...data, delegation_id: await delegationIdOf(registrationId) }, clock);
}

/** A pending registration's outer claim ended unapproved; an event only when its login hint is a member's. */
export async function webhookDelegationExpired(registrationId: string, clock: Clock): Promise<void> {
  const registration = await findRegistration(registrationId);
  if (!registration) return;
  const member = await findMemberByEmail(registration.loginHint);
  if (!member) return;
  await enqueueEvent(
    "delegation.expired",
    { registration_id: registrationId, member_id: member.id, client_name: registration.clientName, scopes: scopesOf(registration.scope), ...agentOriginOf(registration) },
    clock,
  );
}
