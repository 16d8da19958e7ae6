import { describe, expect, it } from "vitest";
import { authorizePath, loginPathFor, redirectAfterDecision } from "@/lib/approval";
import { safeReturnPath } from "@/lib/auth/return-path";
import { describeAuditType, describeDelegationStatus, describeScope, describeTimeLeft, formatUtc } from "@/lib/delegations/wording";
import { AUDIT_TYPES } from "@/lib/audit";
import { SCOPES } from "@/lib/schemas/service-auth";

const token = `cat_${"x".repeat(43)}`;

describe("redirectAfterDecision", () => {
  it("sends decisions to the result page and everything else back to the link", () => {
    expect(redirectAfterDecision(token, { outcome: "approved" })).toBe("/agent/authorize/done?result=approved");
    expect(redirectAfterDecision(token, { outcome: "denied" })).toBe("/agent/authorize/done?result=denied");
    expect(redirectAfterDecision(token, { outcome: "locked" })).toBe("/agent/authorize/done?result=locked");
    expect(redirectAfterDecision(token, { outcome: "wrong_code", remainingTries: 3 })).toBe(`/agent/authorize?claim_attempt_token=${token}&error=wrong_code&remaining=3`);
    for (const outcome of ["not_owner", "not_found", "expired", "closed", "already_decided"] as const) {
      expect(redirectAfterDecision(token, { outcome })).toBe(`/agent/authorize?claim_attempt_token=${token}`);
    }
  });

  it("the sign-in return path survives the open-redirect guard", () => {
    const login = new URL(loginPathFor(authorizePath(token)), "http://localhost:3000");
    expect(safeReturnPath(login.searchParams.get("callbackUrl"), "http://localhost:3000")).toBe(`/agent/authorize?claim_attempt_token=${token}`);
  });
});

describe("wording", () => {
  it("has plain words for every scope and audit type", () => {
    for (const scope of SCOPES) expect(describeScope(scope)).toMatch(/read only/);
    for (const type of AUDIT_TYPES) expect(describeAuditType(type).length).toBeGreaterThan(5);
  });

  it("one word for the member's action, revoke: the /account status and the activity log (issue 51)", () => {
    expect(describeDelegationStatus("cancelled")).toBe("Revoked");
    expect(describeDelegationStatus("active")).toBe("Active");
    expect(describeAuditType("cancellation")).toBe("Delegation revoked");
    for (const type of AUDIT_TYPES) expect(describeAuditType(type)).not.toMatch(/cancel/i);
  });

  it("describes the time left and formats times in UTC", () => {
    const now = new Date("2026-01-01T12:00:00.000Z");
    expect(describeTimeLeft(new Date(now.getTime() + 600_000), now)).toBe("10 minutes");
    expect(describeTimeLeft(new Date(now.getTime() + 119_000), now)).toBe("1 minute");
    expect(describeTimeLeft(new Date(now.getTime() + 59_000), now)).toBe("less than a minute");
    expect(formatUtc(now)).toBe("2026-01-01 12:00 UTC");
    expect(formatUtc(null)).toBe("never");
  });
});
