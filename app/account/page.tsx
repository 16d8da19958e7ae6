import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getMemberSession } from "@/lib/auth/options";
import { consentSettingsOf } from "@/lib/consent";
import { SETTING_FIELDS, SETTINGS_PATH, settingsFormToken } from "@/lib/consent/settings-form";
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

/** One setting of the "Agent requests" form: a checkbox, its label and what it does. */
function SettingBox({ field, checked, label, children }: { field: string; checked: boolean; label: string; children: React.ReactNode }) {
  return (
    <>
      <div className="checkbox">
        <input type="checkbox" id={field} name={field} defaultChecked={checked} aria-describedby={`${field}_help`} />
        <label htmlFor={field}>{label}</label>
      </div>
      <p id={`${field}_help`} className="muted">
        {children}
      </p>
    </>
  );
}

export default async function AccountPage({ searchParams }: { searchParams: SearchParams }) {
  const member = await getMemberSession();
  if (!member) redirect("/login?callbackUrl=%2Faccount");
  const { revoked, settings: settingsSaved } = await searchParams;
  const [delegations, auditLog, settings, settingsToken] = await Promise.all([
    listDelegations(member.memberId),
    listMemberAuditLog(member.memberId),
    consentSettingsOf(member.memberId),
    settingsFormToken(member.memberId),
  ]);
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
      {settingsSaved === "saved" ? (
        <p role="status" className="notice">
          Your settings for agent requests were saved.
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

      {/* Issue 53 (RFC 10027 §6.1.7, §6.1.16): both off unless the member turns them on. */}
      <section className="card" aria-labelledby="agent-settings" id="agent-settings-card">
        <h2 id="agent-settings">Agent requests</h2>
        <form method="post" action={SETTINGS_PATH} className="settings">
          <input type="hidden" name="form_token" value={settingsToken} />
          <SettingBox field={SETTING_FIELDS.verifiedAgentsOnly} checked={settings.verifiedAgentsOnly} label="Only verified agents may ask for access">
            A verified agent signs its requests, so the approval page shows who sent it. A request from an agent that does not sign can then only be denied.
          </SettingBox>
          <SettingBox field={SETTING_FIELDS.confirmUnverifiedAgents} checked={settings.confirmUnverifiedAgents} label="Ask unverified agents to confirm a code">
            When you approve an agent that does not sign its requests, you are shown a 6-digit code, and the agent gets access only after you tell it that code. Someone who sent
            you a link could not use your approval without asking you for the code.
          </SettingBox>
          <div className="actions">
            <button type="submit">Save settings</button>
          </div>
        </form>
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
