import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { authorizePath, CONFIRMATION_COOKIE, DECISION_PATH, loadApprovalView, loginPathFor } from "@/lib/approval";
import { describeScope, describeTimeLeft } from "@/lib/delegations/wording";
import { callerKey } from "@/lib/http/client-ip";
import { PhishingWarning } from "@/app/components/phishing-warning";
import { SignOutButton } from "@/app/components/sign-out-button";
import { ConfirmationCodePanel, DecisionFields, DenyOnlyForm, ReportButton, RequestContextLines, TimeLeftLine } from "./consent";
import { Notice } from "./notice";

export const metadata: Metadata = { title: "Approve an agent", robots: { index: false, follow: false } };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function errorMessage(error: string | string[] | undefined, remaining: string | string[] | undefined): string | null {
  if (error === "code_missing") return "Type the code your agent shows you, then press Approve.";
  if (error !== "wrong_code") return null;
  const tries = typeof remaining === "string" && /^[1-9]$/.test(remaining) ? Number(remaining) : null;
  if (tries === null) return "That code is not correct.";
  return `That code is not correct. ${tries === 1 ? "1 try is" : `${tries} tries are`} left before this request is closed as denied.`;
}

export default async function AuthorizePage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  // The browser's network (compared with the request's, issue 53) and the sealed confirmation code, if it has one.
  const browser = { callerKey: callerKey(await headers()), confirmationCookie: (await cookies()).get(CONFIRMATION_COOKIE)?.value };
  const view = await loadApprovalView(params.claim_attempt_token, browser);
  if (view.kind === "sign_in") redirect(view.loginPath);
  const unknownLink = (
    <Notice title="This link is not valid">
      <p>We could not find a request for this link. Check that you opened the whole link your agent showed you, or ask your agent to start again.</p>
    </Notice>
  );
  if (view.kind === "not_found") return unknownLink;
  const { attempt, member, formToken, attemptToken, context, policy, confirmationCode } = view;
  const now = new Date();
  switch (attempt.state) {
    case "not_found":
      return unknownLink;
    case "expired":
      return (
        <Notice title="This link has expired">
          <p>Requests can be approved for ten minutes only. Nothing was approved. Ask your agent for a new link and code.</p>
        </Notice>
      );
    case "closed":
      return (
        <Notice title="This link is no longer in use">
          <p>Your agent asked again and received a newer link, so this one was closed. Nothing was approved here. Use the newest link your agent shows you.</p>
        </Notice>
      );
    case "approved":
      return (
        <Notice title="This request was already approved">
          <p>There is nothing more to do here. You can see and revoke the agent&apos;s access on your account page.</p>
        </Notice>
      );
    case "denied":
      return (
        <Notice title="This request was already denied">
          <p>The agent did not get access. If this was a mistake, ask your agent to start again.</p>
        </Notice>
      );
  }

  if (attempt.state === "confirming" && attempt.isOwner && formToken) {
    return (
      <ConfirmationCodePanel code={confirmationCode}>
        <TimeLeftLine expiresAt={attempt.expiresAt} serverText={describeTimeLeft(attempt.expiresAt, now)} label="The code works for:" />
        <DenyOnlyForm attemptToken={attemptToken} formToken={formToken} withReport />
      </ConfirmationCodePanel>
    );
  }

  if (attempt.state === "confirming" || !attempt.isOwner || !formToken) {
    // Never show whose account the request names: only that it is not the signed-in member's.
    return (
      <div className="card narrow approval">
        <h1>This request is not for your account</h1>
        <p>
          You are signed in as <strong>{member.email}</strong>, but an agent asked for access to a different account. You cannot approve or deny it, and nothing has changed.
        </p>
        <p>If the request is yours, sign out and sign in with the account you gave your agent.</p>
        <div className="actions">
          <SignOutButton callbackUrl={loginPathFor(authorizePath(attemptToken))} />
        </div>
      </div>
    );
  }

  const message = errorMessage(params.error, params.remaining);
  const serverTimeLeft = describeTimeLeft(attempt.expiresAt, now);
  const contextLines = context ? <RequestContextLines context={context} now={now} /> : null;

  // Issue 53: the member accepts verified agents only, or the operator blocked this agent: Deny is all there is.
  if (policy && !policy.approvable) {
    return (
      <div className="card narrow approval">
        {policy.reason === "verified_only" ? (
          <>
            <h1>Only verified agents may ask for access</h1>
            <p data-testid="verified-only-explanation">
              You chose on your account page to accept requests only from verified agents: agents that sign their requests, so this page can show who sent them. This request is not
              signed, so it cannot be approved.
            </p>
            <p>
              If you started it yourself, ask your agent to sign its requests, or turn the setting off on your account page and ask your agent to start again. Otherwise, deny it.
            </p>
          </>
        ) : (
          <>
            <h1>This agent is blocked</h1>
            <p data-testid="agent-blocked-explanation">
              Requests from <strong>{attempt.agentOrigin ? new URL(attempt.agentOrigin).host : "this agent"}</strong> were blocked by the operator of this service after members
              reported requests they did not start. It cannot be approved. Deny it.
            </p>
          </>
        )}
        <PhishingWarning />
        {contextLines}
        <TimeLeftLine expiresAt={attempt.expiresAt} serverText={serverTimeLeft} label="Time left before it closes by itself:" />
        <DenyOnlyForm attemptToken={attemptToken} formToken={formToken} />
      </div>
    );
  }

  return (
    <div className="card narrow approval">
      <h1>Approve access for an agent?</h1>
      <p>An agent asks for read-only access to your account. Approve only if you started this yourself.</p>
      <PhishingWarning />
      {contextLines}

      {attempt.agentOrigin ? (
        <section aria-labelledby="agent-verified" className="verified-agent">
          <h2 id="agent-verified">Who sent it</h2>
          <p className="verified-origin" data-testid="verified-origin">
            Verified: sent by <strong>{new URL(attempt.agentOrigin).host}</strong>
          </p>
          <p className="muted">The request was signed with a key that {attempt.agentOrigin} publishes, so it comes from whoever runs that site.</p>
        </section>
      ) : null}

      <section aria-labelledby="agent-name">
        <h2 id="agent-name">Name given by the agent</h2>
        {attempt.clientName ? (
          <p className="client-name" data-testid="client-name">
            {/* Isolated, so no character of the agent's choosing can reorder the text around it. */}
            <bdi dir="auto" data-testid="client-name-isolated">
              {attempt.clientName}
            </bdi>
          </p>
        ) : (
          <p className="client-name muted" data-testid="client-name">
            (no name given)
          </p>
        )}
        {attempt.agentOrigin ? (
          <p className="muted" data-testid="self-given-name-note">
            The agent chose this name itself; only the sender above is verified.
          </p>
        ) : (
          <p className="warning">The agent chose this name itself. We have not checked it, so it may be misleading.</p>
        )}
      </section>

      <section aria-labelledby="agent-scopes">
        <h2 id="agent-scopes">If you approve, it can</h2>
        <ul className="scopes">
          {attempt.scopes.map((scope) => (
            <li key={scope}>{describeScope(scope)}</li>
          ))}
        </ul>
        <p className="muted">It cannot change anything, and you can revoke its access at any time on your account page.</p>
      </section>

      <TimeLeftLine expiresAt={attempt.expiresAt} serverText={serverTimeLeft} />
      {policy?.approvable && policy.confirmationCode ? (
        <p className="notice" data-testid="confirmation-code-note">
          Because of your settings, approving shows you a 6-digit code. Your agent gets access only after you tell it that code.
        </p>
      ) : null}

      <form method="post" action={DECISION_PATH} className="decision">
        <DecisionFields attemptToken={attemptToken} formToken={formToken} />
        <label htmlFor="user_code">Code</label>
        <input
          id="user_code"
          name="user_code"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          maxLength={20}
          pattern="[0-9 \-]*"
          required
          className="code-input"
          aria-describedby="user_code_help"
        />
        <p id="user_code_help" className="muted">
          Type the 8-digit code your agent shows you.
        </p>
        {message ? (
          <p role="alert" className="error">
            {message}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="deny" className="danger" formNoValidate>
            Deny
          </button>
          <ReportButton />
        </div>
        <p className="muted" id="report-help">
          &ldquo;I didn&apos;t start this&rdquo; denies the request and tells the operator, who can block agents that send requests nobody started.
        </p>
      </form>
    </div>
  );
}
