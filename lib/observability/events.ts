// The domain's observable moments (issue #17 items 2 and 3): each call writes one log line and counts one
// metric. Called with ids and outcome names only, never a token, claim, code or e-mail.
import { delegationLog } from "./log";
import { recordDecision, recordTokenGrant } from "./metrics";

/** A registration was created (POST /agent/identity). */
export function observeRegistration(registrationId: string): void {
  delegationLog("registered", { registrationId });
}

/** A token endpoint answer: the grant type and its outcome (approved, authorization_pending, slow_down, …). */
export function observeTokenGrant(grantType: "claim" | "jwt-bearer", outcome: string): void {
  recordTokenGrant(grantType, outcome);
  if (outcome === "approved" || outcome === "issued") delegationLog(grantType === "claim" ? "token_issued" : "exchanged", {});
}

/** A member approved or denied a claim attempt. */
export function observeDecision(decision: "approved" | "denied", registrationId: string, memberId: string): void {
  recordDecision(decision);
  delegationLog(decision, { registrationId, memberId });
}
