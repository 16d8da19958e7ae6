// The approval page and the /account revoke form over plain HTTP: sign-in redirect, security headers, and
// cross-site POSTs (no, wrong or another member's form token; Fetch metadata saying cross-site) changing nothing.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { decisionFormBinding } from "@/lib/approval";
import { registerClaim } from "@/lib/service-auth/lifecycle";
import { createFormToken } from "@/lib/csrf";
import { getDb } from "@/lib/db/prisma";
import { sha256 } from "@/lib/crypto/secrets";
import { revokeFormToken } from "@/lib/delegations/revoke-form";
import { sessionCookie } from "../support/browser-session";
import { configureFile } from "../support/config";

const base = inject("baseUrl");

beforeAll(() => {
  // Write fixtures into the database of the shared server (not this file's throwaway one).
  configureFile({ DATABASE_URL: inject("databaseUrl") });
});

async function newAttempt(email: string, clientName: string | null = "Form Test Agent") {
  const registration = await registerClaim({ loginHint: email, clientName, scopes: ["agent.account.read", "agent.registrations.read"] });
  return { registrationId: registration.registrationId, token: registration.attempt.attemptToken, code: registration.attempt.userCode };
}

async function attemptRow(token: string) {
  return getDb().claimAttempt.findUniqueOrThrow({ where: { attemptTokenHash: sha256(token) } });
}

async function memberId(email: string) {
  return (await getDb().member.findUniqueOrThrow({ where: { email } })).id;
}

function postForm(path: string, fields: Record<string, string>, headers: Record<string, string>) {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const sameOrigin = { "Sec-Fetch-Site": "same-origin", Origin: "null" };

describe("GET /agent/authorize", () => {
  it("sends a visitor who is not signed in to /login and back", async () => {
    const { token } = await newAttempt("ada@example.com");
    const res = await fetch(`${base}/agent/authorize?claim_attempt_token=${token}`, { redirect: "manual" });
    expect([303, 307, 308]).toContain(res.status);
    const location = new URL(res.headers.get("location")!, base);
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("callbackUrl")).toBe(`/agent/authorize?claim_attempt_token=${token}`);
  });

  it("cannot be framed, sends no Referer and is not cached", async () => {
    const { token } = await newAttempt("ada@example.com", "Header Agent");
    const res = await fetch(`${base}/agent/authorize?claim_attempt_token=${token}`, { headers: { Cookie: await sessionCookie(base, "ada@example.com") } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Header Agent");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toContain("no-store");
  });
});

describe("POST /agent/authorize/decision refuses cross-site requests", () => {
  it("without a form token, or with a forged one, nothing changes", async () => {
    const { token, code } = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "ada@example.com");
    const variants: Record<string, string>[] = [
      { Cookie: cookie, "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
      { Cookie: cookie, ...sameOrigin },
      { Cookie: cookie },
    ];
    for (const headers of variants) {
      for (const formToken of [undefined, "", "1700000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "garbage"]) {
        const fields: Record<string, string> = { claim_attempt_token: token, decision: "approve", user_code: code };
        if (formToken !== undefined) fields.form_token = formToken;
        const res = await postForm("/agent/authorize/decision", fields, headers);
        expect(res.status).toBe(403);
        await res.arrayBuffer();
      }
    }
    const deny = await postForm("/agent/authorize/decision", { claim_attempt_token: token, decision: "deny" }, { Cookie: cookie, "Sec-Fetch-Site": "cross-site" });
    expect(deny.status).toBe(403);
    const row = await attemptRow(token);
    expect(row).toMatchObject({ status: "initiated", failedCodeCount: 0, decidedAt: null });
  });

  it("a valid form token is refused when the browser says the request is cross-site or from another origin", async () => {
    const { token, code } = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "ada@example.com");
    const formToken = await createFormToken(decisionFormBinding(await memberId("ada@example.com"), token));
    const variants: Record<string, string>[] = [{ "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site" }, { Origin: "https://evil.example" }];
    for (const headers of variants) {
      const res = await postForm(
        "/agent/authorize/decision",
        { claim_attempt_token: token, decision: "approve", user_code: code, form_token: formToken },
        { Cookie: cookie, ...headers },
      );
      expect(res.status).toBe(403);
    }
    expect((await attemptRow(token)).status).toBe("initiated");
    expect(await getDb().delegation.count({ where: { registration: { attempts: { some: { attemptTokenHash: sha256(token) } } } } })).toBe(0);
  });

  it("another member's form token, or another attempt's, does not work", async () => {
    const { token, code } = await newAttempt("ada@example.com");
    const other = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "ada@example.com");
    const gracesToken = await createFormToken(decisionFormBinding(await memberId("grace@example.com"), token));
    const otherAttemptsToken = await createFormToken(decisionFormBinding(await memberId("ada@example.com"), other.token));
    for (const formToken of [gracesToken, otherAttemptsToken]) {
      const res = await postForm(
        "/agent/authorize/decision",
        { claim_attempt_token: token, decision: "approve", user_code: code, form_token: formToken },
        { Cookie: cookie, ...sameOrigin },
      );
      expect(res.status).toBe(403);
    }
    expect((await attemptRow(token)).status).toBe("initiated");
  });

  it("without a session the POST is sent to sign in and changes nothing", async () => {
    const { token, code } = await newAttempt("ada@example.com");
    const formToken = await createFormToken(decisionFormBinding(await memberId("ada@example.com"), token));
    const res = await postForm("/agent/authorize/decision", { claim_attempt_token: token, decision: "approve", user_code: code, form_token: formToken }, sameOrigin);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).pathname).toBe("/login");
    expect((await attemptRow(token)).status).toBe("initiated");
  });

  it("the page's own POST under Origin: null works; a wrong code is counted and sent back with the tries left", async () => {
    const { token } = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "ada@example.com");
    const formToken = await createFormToken(decisionFormBinding(await memberId("ada@example.com"), token));
    const res = await postForm(
      "/agent/authorize/decision",
      { claim_attempt_token: token, decision: "approve", user_code: "00000000", form_token: formToken },
      { Cookie: cookie, ...sameOrigin },
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe(new URL(base).origin);
    expect(location.searchParams.get("error")).toBe("wrong_code");
    expect(location.searchParams.get("remaining")).toBe("4");
    expect((await attemptRow(token)).failedCodeCount).toBe(1);
  });

  it("an empty code is not counted as a guess", async () => {
    const { token } = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "ada@example.com");
    const formToken = await createFormToken(decisionFormBinding(await memberId("ada@example.com"), token));
    const res = await postForm(
      "/agent/authorize/decision",
      { claim_attempt_token: token, decision: "approve", user_code: " ", form_token: formToken },
      { Cookie: cookie, ...sameOrigin },
    );
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("code_missing");
    expect((await attemptRow(token)).failedCodeCount).toBe(0);
  });

  it("a member who is not the owner cannot decide even with a form token of their own", async () => {
    const { token, code } = await newAttempt("ada@example.com");
    const cookie = await sessionCookie(base, "grace@example.com");
    const formToken = await createFormToken(decisionFormBinding(await memberId("grace@example.com"), token));
    for (const decision of ["approve", "deny"]) {
      const res = await postForm("/agent/authorize/decision", { claim_attempt_token: token, decision, user_code: code, form_token: formToken }, { Cookie: cookie, ...sameOrigin });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get("location")!).searchParams.get("claim_attempt_token")).toBe(token);
    }
    expect(await attemptRow(token)).toMatchObject({ status: "initiated", failedCodeCount: 0 });
  });

  it("answers 405 to other methods and 400 to a malformed form", async () => {
    const get = await fetch(`${base}/agent/authorize/decision`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const cookie = await sessionCookie(base, "ada@example.com");
    const bad = await postForm("/agent/authorize/decision", { decision: "maybe" }, { Cookie: cookie, ...sameOrigin });
    expect(bad.status).toBe(400);
    const json = await fetch(`${base}/agent/authorize/decision`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie, ...sameOrigin }, body: "{}" });
    expect(json.status).toBe(400);
  });
});

describe("POST /account/revoke refuses cross-site requests", () => {
  it("without a valid form token for this member and delegation, the delegation stays active", async () => {
    const { token, code, registrationId } = await newAttempt("katherine@example.com");
    const cookie = await sessionCookie(base, "katherine@example.com");
    const katherine = await memberId("katherine@example.com");
    const approve = await postForm(
      "/agent/authorize/decision",
      { claim_attempt_token: token, decision: "approve", user_code: code, form_token: await createFormToken(decisionFormBinding(katherine, token)) },
      { Cookie: cookie, ...sameOrigin },
    );
    expect(new URL(approve.headers.get("location")!).pathname).toBe("/agent/authorize/done");
    const delegation = await getDb().delegation.findUniqueOrThrow({ where: { registrationId } });
    const cases: [Record<string, string>, string | undefined][] = [
      [{ "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }, undefined],
      [sameOrigin, "garbage"],
      [sameOrigin, await revokeFormToken(await memberId("grace@example.com"), delegation.id)],
      [{ "Sec-Fetch-Site": "cross-site" }, await revokeFormToken(katherine, delegation.id)],
    ];
    for (const [headers, formToken] of cases) {
      const fields: Record<string, string> = { delegation_id: delegation.id };
      if (formToken) fields.form_token = formToken;
      const res = await postForm("/account/revoke", fields, { Cookie: cookie, ...headers });
      expect(res.status).toBe(403);
    }
    expect((await getDb().delegation.findUniqueOrThrow({ where: { id: delegation.id } })).status).toBe("active");

    const ok = await postForm("/account/revoke", { delegation_id: delegation.id, form_token: await revokeFormToken(katherine, delegation.id) }, { Cookie: cookie, ...sameOrigin });
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get("location")!).search).toBe("?revoked=cancelled");
    expect((await getDb().delegation.findUniqueOrThrow({ where: { id: delegation.id } })).status).toBe("cancelled");
    expect((await getDb().registration.findUniqueOrThrow({ where: { id: registrationId } })).status).toBe("cancelled");
  });
});
