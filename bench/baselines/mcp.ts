// Baseline for MCP tools/call lookup_member: a bare v2 MCP SDK server (@modelcontextprotocol/server, the SDK
// the service runs) on node:http: the SDK's own entry, createMcpHandler, with its defaults (2026-07-28 through
// the modern path, 2025 traffic through its stateless fallback: a server and transport per request) and a
// minimal node:http ↔ fetch bridge, with the same lookup_member tool running the same query through
// better-sqlite3 directly. Env: PORT, DATABASE_URL, BASE_URL.
import http from "node:http";
import Database from "better-sqlite3";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
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
// `+?` as the app writes its parameters (lib/db/sql/placeholders.ts): a bare `?` would re-plan on every call.
const bySlug = db.prepare<[string], MemberRow>(`SELECT displayName, slug, joinedAt FROM Member WHERE slug = +? AND publicProfile = 1 LIMIT 1`);
const byName = db.prepare<[string], MemberRow>(`SELECT displayName, slug, joinedAt FROM Member WHERE displayNameKey = +? AND publicProfile = 1 ORDER BY joinedAt, slug LIMIT 1`);

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

const handler = createMcpHandler(buildServer);

/** node:http → fetch: the request with its whole body, as the SDK's node adapter does. */
async function webRequest(req: http.IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "POST" ? Buffer.concat(chunks) : undefined;
  return new Request(`http://127.0.0.1${req.url ?? "/"}`, { method: req.method, headers, body });
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const response = await handler.fetch(await webRequest(req));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
});

httpServer.listen(port, "127.0.0.1", () => console.log(`baseline mcp listening on ${port}`));
// A normal exit on SIGTERM, so that a `--cpu-prof` profile of this baseline is written (bench --cpu-prof).
process.on("SIGTERM", () => process.exit(0));
