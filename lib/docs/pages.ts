// Markdown renderings of every human page (CONTRACT.md §9, STANDARDS.md §13): documents give their
// markdown source under a title; the other pages get a faithful plain description. Nothing here reads a
// session: the markdown of /account explains the page, it never shows an account. Only public member
// profiles read the database, for exactly what their HTML page shows.
import { findPublicProfile } from "@/lib/members/profile";
import { absoluteUrl } from "@/lib/config";
import { compareKinds, getCorpus, getDoc, kindLabel } from "./corpus";
import { STATIC_PAGES } from "./twins";

/** Every human page path: the static pages and one per document. */
export function pagePaths(): string[] {
  return [...STATIC_PAGES, ...getCorpus().docs.map((d) => `/docs/${d.slug}`)];
}

export interface PageMarkdown {
  status: 200 | 404;
  markdown: string;
}

function home(): string {
  return `# Agent Gate

Agent Gate is the agent-facing door of our membership community. It lets an AI agent read **one member's own account**, read-only, after that member approves it in a browser; and it lets any agent read what the community publishes, with no credential at all.

## For members

When an agent asks for access, it shows you a link and an 8-digit code. Open the link, sign in, type the code and approve or deny. You can see and revoke every agent you approved on your account page.

- [Sign in](${absoluteUrl("/login")})
- [Your account](${absoluteUrl("/account")})
- [Approving and revoking agents](${absoluteUrl("/docs/approving-agents")})

## For agents and their developers

Delegated own-account access uses the \`service_auth\` flow: register, let the human approve, poll for a short-lived Bearer token and a signed identity assertion. Public surfaces need no credential:

- MCP tool server: ${absoluteUrl("/mcp")}
- Documentation MCP server: ${absoluteUrl("/mcp/docs")}
- A2A endpoint: ${absoluteUrl("/a2a")}
- Questions to the documentation: ${absoluteUrl("/ask")}?query=…
- Public-read batch: POST ${absoluteUrl("/api/v1/batch")}
- Contract simulator: POST ${absoluteUrl("/api/v1/sandbox/simulate")}

Every page is also available as markdown: append \`.md\` to its path (this page: ${absoluteUrl("/index.md")}) or send \`Accept: text/markdown\`. All pages are listed in ${absoluteUrl("/sitemap.xml")}.

- [Getting started for agents](${absoluteUrl("/docs/getting-started.md")})
- [Documentation index](${absoluteUrl("/docs.md")})
`;
}

function login(): string {
  return `# Sign in

The sign-in page is for **members**, the people of the community. They sign in with the e-mail address and password of their community account, in a browser, with the fields "Email" and "Password" and the button "Sign in".

Agents never sign in here and never receive a browser session. An agent that needs a member's own data asks that member for delegated, read-only access with the \`service_auth\` flow; see [Delegated access with service_auth](${absoluteUrl("/docs/service-auth.md")}).

- [Membership](${absoluteUrl("/docs/membership.md")})
- [Home](${absoluteUrl("/index.md")})
`;
}

function account(): string {
  return `# Your account

This page needs a signed-in member: it is shown only in a browser session, and its markdown form shows no account data.

Signed in, a member sees their account and every agent delegation they approved: the client name the agent chose, the scopes, when it was approved, when it was last used and its status, each with a "Revoke" button. Revoking ends that agent's access at once: its access tokens stop working, its identity assertion is refused and its registration becomes \`cancelled\`.

Agents read a member's own data only through the scoped, read-only API, with a Bearer token the member approved; see [Own-account API](${absoluteUrl("/docs/own-account-api.md")}).

- [Sign in](${absoluteUrl("/login")})
- [Approving and revoking agents](${absoluteUrl("/docs/approving-agents.md")})
- [Privacy](${absoluteUrl("/docs/privacy.md")})
`;
}

function map(): string {
  return `# Map

The map page is for people, in a browser: it shows the community's members who chose a public profile. Its data comes from \`/api/map/search\`, which is same-origin plumbing of that page only, not an API for agents; other callers are refused.

Agents use the public-read tools instead: \`lookup_member\` (exact display name or slug) and \`get_community_stats\` on the [hosted MCP tool server](${absoluteUrl("/docs/mcp-server.md")}) or the [A2A endpoint](${absoluteUrl("/docs/a2a.md")}).
`;
}

function authorize(): string {
  return `# Approve an agent

This page is where a member decides on an agent's request for access. It is opened from the link an agent shows (\`/agent/authorize?claim_attempt_token=…\`), needs the member to be signed in in a browser, and asks for the 8-digit code the agent shows before the buttons "Approve" and "Deny" take effect. Its markdown form shows no request details.

- [Approving and revoking agents](${absoluteUrl("/docs/approving-agents.md")})
- [Delegated access with service_auth](${absoluteUrl("/docs/service-auth.md")})
`;
}

function docsIndex(): string {
  const corpus = getCorpus();
  const lines = [
    "# Documentation",
    "",
    "Everything Agent Gate publishes for agents, their developers and members. Each document is also available as markdown at its URL plus `.md`.",
    "",
  ];
  for (const kind of [...corpus.kinds].sort(compareKinds)) {
    lines.push(`## ${kindLabel(kind)}`, "");
    for (const doc of corpus.docs.filter((d) => d.kind === kind)) {
      lines.push(`- [${doc.title}](${absoluteUrl(`/docs/${doc.slug}.md`)}): ${doc.summary}`);
    }
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The full markdown of one document: its title, summary and body. */
export function docMarkdown(slug: string): string | null {
  const doc = getDoc(slug);
  if (!doc) return null;
  return `# ${doc.title}\n\n> ${doc.summary}\n\n${doc.body.trimEnd()}\n\n---\n\nUpdated ${doc.updated}. Kind: ${doc.kind}. HTML: ${absoluteUrl(`/docs/${doc.slug}`)}. Index: ${absoluteUrl("/docs.md")}.\n`;
}

const NOT_FOUND = `# Page not found\n\nThere is no page at this address. Start at the [documentation index](/docs.md) or the [home page](/index.md).\n`;

/** The markdown twin of a public member profile page (/members/<slug>), or null for other paths. */
export async function memberPageMarkdown(pagePath: string): Promise<PageMarkdown | null> {
  const match = /^\/members\/([a-z0-9-]+)$/.exec(pagePath);
  if (!match) return null;
  const profile = await findPublicProfile(match[1]!);
  if (!profile) return { status: 404, markdown: NOT_FOUND };
  const since = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" }).format(profile.joinedAt);
  const place = [profile.city, profile.country].filter(Boolean).join(", ");
  return {
    status: 200,
    markdown: `# ${profile.displayName}\n\nMember since ${since}.${place ? ` Lives in ${place}.` : ""}\n\nA public community profile. HTML: ${absoluteUrl(pagePath)}.\n`,
  };
}

/** The markdown rendering of a page path, or a 404 rendering for a path that is no page. */
export function pageMarkdown(pagePath: string): PageMarkdown {
  switch (pagePath) {
    case "/":
      return { status: 200, markdown: home() };
    case "/login":
      return { status: 200, markdown: login() };
    case "/account":
      return { status: 200, markdown: account() };
    case "/map":
      return { status: 200, markdown: map() };
    case "/docs":
      return { status: 200, markdown: docsIndex() };
    case "/agent/authorize":
      return { status: 200, markdown: authorize() };
  }
  const doc = /^\/docs\/([a-z0-9-]+)$/.exec(pagePath);
  const markdown = doc ? docMarkdown(doc[1]!) : null;
  return markdown ? { status: 200, markdown } : { status: 404, markdown: NOT_FOUND };
}
