import Link from "next/link";

export default function HomePage() {
  return (
    <>
      <h1>Agent Gate</h1>
      <p>
        Agent Gate is the agent-facing door of our membership community. It lets an AI agent read <strong>one member&apos;s own account</strong>, read-only, after that member
        approves it in a browser; and it lets any agent read what the community publishes, with no credential at all.
      </p>
      <section className="card">
        <h2>For members</h2>
        <p>
          When an agent asks for access, it shows you a link and an 8-digit code. Open the link, sign in, type the code and approve or deny. You can see and revoke every agent you
          approved on your account page.
        </p>
        <div className="actions">
          <Link className="button" href="/login">
            Sign in
          </Link>
          <Link className="button secondary" href="/account">
            Your account
          </Link>
        </div>
      </section>
      <section className="card">
        <h2>For agents and their developers</h2>
        <p>
          Delegated own-account access uses the <code>service_auth</code> flow: register, let the human approve, poll for a short-lived Bearer token and a signed identity
          assertion. Public surfaces: an MCP tool server at <code>/mcp</code>, a docs MCP server at <code>/mcp/docs</code>, an A2A endpoint at <code>/a2a</code>, <code>/ask</code>,
          a batch API and a no-write simulator. Every page is also available as markdown.
        </p>
        <div className="actions">
          <Link className="button" href="/docs">
            Read the docs
          </Link>
        </div>
      </section>
    </>
  );
}
