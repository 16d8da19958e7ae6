import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getMemberSession } from "@/lib/auth/options";
import { listDelegations } from "@/lib/delegations";
import { listMemberAuditLog } from "@/lib/delegations/audit-log";
import { REVOKE_PATH, revokeFormToken } from "@/lib/delegations/revoke-form";
import { describeAuditType, describeDelegationStatus, describeScope, formatUtc } from "@/lib/delegations/wording";

export const metadata: Metadata = { title: "Your account", robots: { index: false, follow: false } };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const REVOKE_MESSAGES: Record<string, string> = {
  cancelled: "Access revoked. The agent's tokens no longer work and it cannot get new ones.",
  already_cancelled: "That access was already revoked.",
  not_found: "That access could not be found.",
};

export default async function AccountPage({ searchParams }: { searchParams: SearchParams }) {
  const member = await getMemberSession();
  if (!member) redirect("/login?callbackUrl=%2Faccount");
  const { revoked } = await searchParams;
  const [delegations, auditLog] = await Promise.all([listDelegations(member.memberId), listMemberAuditLog(member.memberId)]);
  const forms = new Map(await Promise.all(delegations.filter((d) => d.status === "active").map(async (d) => [d.id, await revokeFormToken(member.memberId, d.id)] as const)));
  const revokeMessage = typeof revoked === "string" ? REVOKE_MESSAGES[revoked] : undefined;

  return (
    <>
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{member.name}</strong> ({member.email}).
      </p>
      {revokeMessage ? (
        <p role="status" className="notice">
          {revokeMessage}
        </p>
      ) : null}

      <section className="card" aria-labelledby="delegations-heading">
        <h2 id="delegations-heading">Agents with access</h2>
        {delegations.length === 0 ? (
          <p className="muted">No agent has access to your account.</p>
        ) : (
          <table className="delegations">
            <thead>
              <tr>
                <th scope="col">Agent (name it gave)</th>
                <th scope="col">It can</th>
                <th scope="col">Approved</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {delegations.map((d) => {
                const formToken = forms.get(d.id);
                return (
                  <tr key={d.id} data-testid="delegation-row" data-registration-id={d.registrationId}>
                    <td data-label="Agent">
                      {/* The agent chose the name: isolated, so it cannot reorder the text around it. */}
                      {d.clientName !== null ? (
                        <bdi dir="auto" data-testid="client-name">
                          {d.clientName}
                        </bdi>
                      ) : (
                        <span className="muted">(no name given)</span>
                      )}
                      {d.agentOrigin !== null ? (
                        <>
                          <br />
                          <span data-testid="verified-origin">Verified: sent by {new URL(d.agentOrigin).host}</span>
                        </>
                      ) : null}
                      <br />
                      <code className="id muted">{d.registrationId}</code>
                    </td>
                    <td data-label="It can">
                      <ul className="scopes compact">
                        {d.scopes.map((s) => (
                          <li key={s}>{describeScope(s)}</li>
                        ))}
                      </ul>
                    </td>
                    <td data-label="Approved">{formatUtc(d.approvedAt)}</td>
                    <td data-label="Last used">{formatUtc(d.lastUsedAt)}</td>
                    <td data-label="Status">
                      <span className={`status status-${d.status}`}>{describeDelegationStatus(d.status)}</span>
                      {d.cancelledAt ? <span className="muted"> {formatUtc(d.cancelledAt)}</span> : null}
                    </td>
                    <td data-label="Action">
                      {formToken ? (
                        <form method="post" action={REVOKE_PATH}>
                          <input type="hidden" name="delegation_id" value={d.id} />
                          <input type="hidden" name="form_token" value={formToken} />
                          <button type="submit" className="danger" aria-label={`Revoke ${d.clientName ?? "this agent"}`}>
                            Revoke
                          </button>
                        </form>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>

      <section className="card" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Activity</h2>
        {auditLog.length === 0 ? (
          <p className="muted">No agent activity yet.</p>
        ) : (
          <table className="audit">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Agent</th>
                <th scope="col">Registration</th>
              </tr>
            </thead>
            <tbody>
              {auditLog.map((e) => (
                <tr key={e.id} data-testid="audit-row" data-type={e.type}>
                  <td data-label="Time">{formatUtc(e.at)}</td>
                  <td data-label="Event">{describeAuditType(e.type)}</td>
                  <td data-label="Agent">
                    {e.clientName !== null ? <bdi dir="auto">{e.clientName}</bdi> : <span className="muted">{e.registrationId === null ? "n/a" : "(no name given)"}</span>}
                    {e.agentOrigin !== null ? <span className="muted"> (verified: {new URL(e.agentOrigin).host})</span> : null}
                  </td>
                  <td data-label="Registration">
                    <code className="id">{e.registrationId ?? "n/a"}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
