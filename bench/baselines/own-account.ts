// Baseline for the own-account read: a bare node:http server doing the same lookup as
// GET /api/v1/agent/account (hash the Bearer token, one indexed query via better-sqlite3, JSON out),
// with nothing else: no framework, no ORM, no audit or last-used write. Env: PORT, DATABASE_URL, BASE_URL.
import { createHash } from "node:crypto";
import http from "node:http";
import Database from "better-sqlite3";

const port = Number(process.env.PORT);
const base = process.env.BASE_URL ?? "";
const file = (process.env.DATABASE_URL ?? "").replace(/^file:/, "");
const db = new Database(file, { readonly: true, fileMustExist: true });
const realm = new URL(base).hostname;
const resource = `${base}/api`;
const challenge = `Bearer realm="${realm}", error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/api"`;

interface Row {
  memberId: string;
  registrationId: string;
  scope: string;
  resource: string;
  expiresAt: string;
  revokedAt: string | null;
  email: string;
  clientName: string | null;
  delegationStatus: string;
  registrationStatus: string;
}

// `+?` as the app writes its parameters (lib/db/sql/placeholders.ts): with a bare `?` SQLite re-plans this join on
// every call under better-sqlite3, and a baseline should not pay for what the app avoids.
const lookup = db.prepare<[string], Row>(`
  SELECT t.memberId, t.registrationId, t.scope, t.resource, t.expiresAt, t.revokedAt, m.email,
         d.clientName, d.status AS delegationStatus, r.status AS registrationStatus
  FROM AccessToken t
  JOIN Member m ON m.id = t.memberId
  JOIN Delegation d ON d.id = t.delegationId
  JOIN Registration r ON r.id = t.registrationId
  WHERE t.tokenHash = +?`);

function unauthorized(res: http.ServerResponse): void {
  res.writeHead(401, { "Content-Type": "application/json", "Cache-Control": "no-store", "WWW-Authenticate": challenge });
  res.end(JSON.stringify({ error: "invalid_token", error_description: "The access token is invalid, expired or revoked." }));
}

const server = http.createServer((req, res) => {
  const match = /^Bearer +(aca_[A-Za-z0-9_-]{43,200})$/.exec(req.headers.authorization ?? "");
  if (req.url !== "/api/v1/agent/account" || !match) return unauthorized(res);
  const row = lookup.get(createHash("sha256").update(match[1]!, "utf8").digest("base64url"));
  const valid =
    row &&
    row.revokedAt === null &&
    Date.parse(row.expiresAt) > Date.now() &&
    row.resource === resource &&
    row.delegationStatus === "active" &&
    row.registrationStatus === "active" &&
    row.scope.split(" ").includes("agent.account.read");
  if (!row || !valid) return unauthorized(res);
  const body = JSON.stringify({
    account_id: row.memberId,
    email: row.email,
    email_verified: true,
    authorization: {
      registration_id: row.registrationId,
      registration_type: "service_auth",
      client_name: row.clientName,
      scope: row.scope,
      resource: row.resource,
      token_expires_at: new Date(Date.parse(row.expiresAt)).toISOString(),
    },
  });
  res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store", Vary: "Authorization" });
  res.end(body);
});

server.listen(port, "127.0.0.1", () => console.log(`baseline own-account listening on ${port}`));
// A normal exit on SIGTERM, so that a `--cpu-prof` profile of this baseline is written (bench --cpu-prof).
process.on("SIGTERM", () => process.exit(0));
