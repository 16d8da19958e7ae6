// Baseline for MCP tools/call lookup_member: a bare MCP SDK server on node:http (McpServer +
// StreamableHTTPServerTransport, stateless, JSON responses; a server and transport per request, as the
// SDK's stateless example does) with the same lookup_member tool running the same query through
// better-sqlite3 directly. Env: PORT, DATABASE_URL, BASE_URL.
import http from "node:http";
import Database from "better-sqlite3";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";

const port = Number(process.env.PORT);
const base = process.env.BASE_URL ?? "";
const file = (process.env.DATABASE_URL ?? "").replace(/^file:/, "");
const db = new Database(file, { readonly: true, fileMustExist: true });

interface MemberRow {
  displayName: string;
  slug: string;
  joinedAt: string;
}
const bySlug = db.prepare<[string], MemberRow>(`SELECT displayName, slug, joinedAt FROM Member WHERE slug = ? AND publicProfile = 1 LIMIT 1`);
const byName = db.prepare<[string], MemberRow>(`SELECT displayName, slug, joinedAt FROM Member WHERE displayNameKey = ? AND publicProfile = 1 ORDER BY joinedAt, slug LIMIT 1`);

const input = z.strictObject({ name_or_slug: z.string().min(1).max(120) });
const output = z.object({
  found: z.boolean(),
  member: z.object({ display_name: z.string(), slug: z.string(), member_since: z.string(), profile_url: z.string() }).optional(),
});

function lookupMember(nameOrSlug: string): z.infer<typeof output> {
  const exact = nameOrSlug.trim().normalize("NFC");
  if (exact.length === 0 || exact.includes("@")) return { found: false };
  const row = bySlug.get(exact) ?? byName.get(exact.toLowerCase());
  if (!row) return { found: false };
  return {
    found: true,
    member: { display_name: row.displayName, slug: row.slug, member_since: row.joinedAt.slice(0, 7), profile_url: `${base}/members/${row.slug}` },
  };
}

// Shared, as the service shares it (lib/mcp/http.ts): otherwise the SDK builds an Ajv instance per server,
// and the ratio would measure that rather than what the service adds around the SDK.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

function buildServer(): McpServer {
  const server = new McpServer({ name: "baseline", version: "1.0.0" }, { jsonSchemaValidator });
  server.registerTool(
    "lookup_member",
    { title: "Look up one community member", description: "Exact display name or slug.", inputSchema: input, outputSchema: output, annotations: { readOnlyHint: true } },
    async (args) => {
      const result = lookupMember(args.name_or_slug);
      return { structuredContent: result, content: [{ type: "text", text: JSON.stringify(result) }] };
    },
  );
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
});

httpServer.listen(port, "127.0.0.1", () => console.log(`baseline mcp listening on ${port}`));
