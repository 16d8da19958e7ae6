// Issue 53's parts of the approval page (RFC 10027 §6.1): when and from where the request came, the forms that
// offer Deny only, and the confirmation code an approval shows.
import type { ReactNode } from "react";
import { DECISION_PATH, type RequestContext } from "@/lib/approval";
import { describeAsked } from "@/lib/delegations/wording";
import { TimeLeft } from "./time-left";

const NETWORK_WORDS = {
  same: { text: "From this network: the network you are on now.", hint: null },
  different: {
    text: "From a different network than the one you are on now.",
    hint: "That is normal when your agent runs elsewhere (a server, another device). If you did not start this request, do not approve it.",
  },
} as const;

/** "Asked 2 minutes ago (14:03 UTC)" and whether it came from the member's network. */
export function RequestContextLines({ context, now }: { context: RequestContext; now: Date }) {
  const network = context.network === "unknown" ? null : NETWORK_WORDS[context.network];
  return (
    <section aria-labelledby="request-context">
      <h2 id="request-context">When and from where</h2>
      <p data-testid="request-asked">{describeAsked(context.askedAt, now)}</p>
      {network ? (
        <p data-testid="request-network" data-network={context.network} className={context.network === "different" ? "network-different" : undefined}>
          {network.text}
          {network.hint ? <span className="muted"> {network.hint}</span> : null}
        </p>
      ) : null}
    </section>
  );
}

/** The decision form's hidden fields: the attempt and this member's form token. */
export function DecisionFields({ attemptToken, formToken }: { attemptToken: string; formToken: string }) {
  return (
    <>
      <input type="hidden" name="claim_attempt_token" value={attemptToken} />
      <input type="hidden" name="form_token" value={formToken} />
    </>
  );
}

/** "I didn't start this" (§6.1.6): denies the request and reports it. */
export function ReportButton() {
  return (
    <button type="submit" name="decision" value="report" className="secondary report" formNoValidate>
      I didn&apos;t start this
    </button>
  );
}

/** A form that can only refuse (the verified-only setting, a blocked agent, an approval waiting for its code). */
export function DenyOnlyForm({ attemptToken, formToken, withReport = false }: { attemptToken: string; formToken: string; withReport?: boolean }) {
  return (
    <form method="post" action={DECISION_PATH} className="decision">
      <DecisionFields attemptToken={attemptToken} formToken={formToken} />
      <div className="actions">
        <button type="submit" name="decision" value="deny" className="danger">
          Deny
        </button>
        {withReport ? <ReportButton /> : null}
      </div>
    </form>
  );
}

export function TimeLeftLine({ expiresAt, serverText, label = "Time left to decide:" }: { expiresAt: Date; serverText: string; label?: string }) {
  return (
    <p className="time-left">
      {label} <TimeLeft expiresAt={expiresAt.toISOString()} serverText={`about ${serverText}`} />
    </p>
  );
}

/** After approving an unsigned agent with the confirmation setting on (§6.1.16): the code to tell it, once per browser. */
export function ConfirmationCodePanel({ code, children }: { code: string | null; children: ReactNode }) {
  return (
    <div className="card narrow approval">
      <h1>One more step: tell your agent the code</h1>
      {code ? (
        <p className="confirmation-code" data-testid="confirmation-code">
          Tell your agent this code: <strong className="code">{code}</strong>. Nobody else should ask you for it.
        </p>
      ) : (
        <p data-testid="confirmation-code-elsewhere">
          This request was approved in another browser, which showed the confirmation code. If you did not approve it yourself, deny it now.
        </p>
      )}
      <p>Your agent gets access only after it sends this code back. If someone who is not your own agent asks you for it, do not give it: deny the request below.</p>
      {children}
    </div>
  );
}
