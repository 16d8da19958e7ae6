// POST /account/settings: the member's agent-request settings on /account (issue 53). Same cross-site protection
// as the approval page and the Revoke button: the browser must not flag it cross-site, and it carries this member's
// form token. An unticked checkbox is absent from the form, so absence means off.
import { getMemberSession } from "@/lib/auth/options";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { createFormToken, isSameOriginRequest, verifyFormToken, type FormBinding } from "@/lib/csrf";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { readForm } from "@/lib/http/body";
import { formRefused, seeOther } from "@/lib/http/browser-responses";
import { SETTINGS_FORM_LIMIT_BYTES } from "@/lib/http/form-limits";
import { saveConsentSettings } from "./settings";

export const SETTINGS_PATH = "/account/settings";

/** The checkboxes' names, as the form and the handler spell them. */
export const SETTING_FIELDS = { verifiedAgentsOnly: "verified_agents_only", confirmUnverifiedAgents: "confirm_unverified_agents" } as const;

function settingsFormBinding(memberId: string): FormBinding {
  return { purpose: "consent-settings", memberId, subject: memberId };
}

export function settingsFormToken(memberId: string, clock: Clock = systemClock): Promise<string> {
  return createFormToken(settingsFormBinding(memberId), clock);
}

/** A ticked checkbox sends "on"; anything else in the field is a form this page did not make. */
function checkbox(value: string | undefined): boolean | null {
  if (value === undefined) return false;
  return value === "on" ? true : null;
}

export async function handleSettingsPost(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  if (!isSameOriginRequest(request.headers)) return formRefused();
  const form = await readForm(request, SETTINGS_FORM_LIMIT_BYTES);
  if (!form.ok) return formRefused(400);
  const verifiedAgentsOnly = checkbox(form.value.get(SETTING_FIELDS.verifiedAgentsOnly));
  const confirmUnverifiedAgents = checkbox(form.value.get(SETTING_FIELDS.confirmUnverifiedAgents));
  if (verifiedAgentsOnly === null || confirmUnverifiedAgents === null) return formRefused(400);
  const member = await getMemberSession();
  if (!member) return seeOther(absoluteUrl("/login?callbackUrl=%2Faccount"));
  if (!(await verifyFormToken(settingsFormBinding(member.memberId), form.value.get("form_token"), clock))) return formRefused();
  await saveConsentSettings(member.memberId, { verifiedAgentsOnly, confirmUnverifiedAgents }, clock.now());
  return seeOther(absoluteUrl("/account?settings=saved#agent-settings"));
}
