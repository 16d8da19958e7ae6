// POST /account/revoke: the "Revoke" button of /account. Same cross-site protection as the approval page.
import { REVOKE_FORM_LIMIT_BYTES } from "@/lib/http/form-limits";
import { getMemberSession } from "@/lib/auth/options";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { createFormToken, isSameOriginRequest, verifyFormToken, type FormBinding } from "@/lib/csrf";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { readForm } from "@/lib/http/body";
import { formRefused, seeOther } from "@/lib/http/browser-responses";
import { cancelDelegation } from "./index";

export const REVOKE_PATH = "/account/revoke";

export function revokeFormBinding(memberId: string, delegationId: string): FormBinding {
  return { purpose: "delegation-revoke", memberId, subject: delegationId };
}

export function revokeFormToken(memberId: string, delegationId: string, clock: Clock = systemClock): Promise<string> {
  return createFormToken(revokeFormBinding(memberId, delegationId), clock);
}

export async function handleRevokePost(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  if (!isSameOriginRequest(request.headers)) return formRefused();
  const form = await readForm(request, REVOKE_FORM_LIMIT_BYTES);
  if (!form.ok) return formRefused(400);
  const delegationId = form.value.get("delegation_id") ?? "";
  if (!delegationId || delegationId.length > 100) return formRefused(400);
  const member = await getMemberSession();
  if (!member) return seeOther(absoluteUrl("/login?callbackUrl=%2Faccount"));
  if (!(await verifyFormToken(revokeFormBinding(member.memberId, delegationId), form.value.get("form_token"), clock))) return formRefused();
  const result = await cancelDelegation(member.memberId, delegationId, clock);
  return seeOther(absoluteUrl(`/account?revoked=${result.outcome}`));
}
