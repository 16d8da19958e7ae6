// Mean time per call of the database side of the hot auth paths, in-process, without HTTP:
// verifyAccessToken, pollClaim on a pending claim, and exchangeIdentityAssertion, on a throwaway SQLite
// file (migrated from prisma/migrations, one member). Calls run one after another, so the figure is the
// latency of one call (wall time, which on SQLite is CPU time) — compare runs on the same machine only.
// Then the SQLite drivers side by side on the same file: the own-account lookup (the access-token store's
// four-table join) through better-sqlite3 13, which the app and Prisma's adapter use, and through node:sqlite,
// each with a bare `?` and with the `+?` the app writes.
//
// Usage: npx tsx bench/micro-db.ts [calls per function, default 1000]
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import Database from "better-sqlite3";

const CALLS = Number(process.argv[2] ?? 1000);
const WARMUP = Math.min(200, Math.ceil(CALLS / 5));

const file = path.join(os.tmpdir(), `agent-gate-micro-${randomBytes(4).toString("hex")}.db`);
process.env.DATABASE_URL = `file:${file}`;
process.env.BASE_URL = "http://localhost:3000";

function migrate(): void {
  const raw = new Database(file);
  const migrations = path.join(__dirname, "../prisma/migrations");
  for (const dir of fs.readdirSync(migrations).sort()) {
    const sql = path.join(migrations, dir, "migration.sql");
    if (fs.existsSync(sql)) raw.exec(fs.readFileSync(sql, "utf8"));
  }
  raw.close();
}

async function time(label: string, calls: number, call: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await call(WARMUP + i);
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  console.log(`${label.padEnd(28)} ${(wallMs / calls).toFixed(3)} ms/call wall, ${(cpuMs / calls).toFixed(3)} ms/call CPU (${calls} calls)`);
}

async function main(): Promise<void> {
  migrate();
  // Imported after DATABASE_URL is set: the configuration is parsed on first use.
  const { ManualClock } = await import("@/lib/clock");
  const { insertMember } = await import("@/lib/members/store");
  const { decideAttempt, pollClaim, registerClaim } = await import("@/lib/service-auth/lifecycle");
  const { exchangeIdentityAssertion } = await import("@/lib/assertions");
  const { protectedResource, verifyAccessToken } = await import("@/lib/tokens");
  const { SCOPES } = await import("@/lib/schemas/service-auth");

  const clock = new ManualClock();
  const member = await insertMember({
    email: "ada@example.com",
    emailVerified: true,
    passwordHash: "x",
    displayName: "Ada",
    displayNameKey: "ada",
    slug: "ada",
    publicProfile: true,
    joinedAt: new Date(),
    city: null,
    country: null,
    latitude: null,
    longitude: null,
  });
  const register = () => registerClaim({ loginHint: member.email, clientName: "Micro Bench", scopes: [...SCOPES] }, clock);

  const approved = await register();
  await decideAttempt({ attemptToken: approved.attempt.attemptToken, member, userCode: approved.attempt.userCode, decision: "approve" }, clock);
  const granted = await pollClaim(approved.claimToken, clock);
  if (!granted.ok) throw new Error(`setup poll: ${granted.error}`);

  // One never-polled pending registration per measured poll, so every poll is "authorization_pending".
  const pending: string[] = [];
  for (let i = 0; i < WARMUP + CALLS; i++) pending.push((await register()).claimToken);

  console.log(`SQLite, ${CALLS} sequential calls each after ${WARMUP} warm-up calls`);
  await time("verifyAccessToken", CALLS, async () => {
    if (!(await verifyAccessToken(granted.accessToken, clock))) throw new Error("token rejected");
  });
  await time("pollClaim (pending)", CALLS, async (i) => {
    const outcome = await pollClaim(pending[i]!, clock);
    if (outcome.ok || outcome.error !== "authorization_pending") throw new Error(`poll: ${JSON.stringify(outcome)}`);
  });
  await time("exchangeIdentityAssertion", CALLS, async () => {
    const outcome = await exchangeIdentityAssertion({ assertion: granted.identityAssertion, resource: protectedResource() }, clock);
    if (!outcome.ok) throw new Error(`exchange: ${outcome.error}`);
  });
  const { closeConnection } = await import("@/lib/db");
  await closeConnection();
  compareDrivers(granted.accessToken);
}

/** The same statement and token through both drivers, alternating, three rounds: µs per lookup. */
function compareDrivers(accessToken: string): void {
  const lookup = `SELECT t."id", t."memberId", t."registrationId", t."delegationId", t."scope", t."resource", t."expiresAt", t."revokedAt",
      m."email" AS "memberEmail", d."clientName", d."status" AS "delegationStatus", d."lastUsedAt", r."registrationType", r."status" AS "registrationStatus"
    FROM "AccessToken" t JOIN "Member" m ON m."id" = t."memberId" JOIN "Delegation" d ON d."id" = t."delegationId"
    JOIN "Registration" r ON r."id" = t."registrationId" WHERE t."tokenHash" = ?`;
  const hash = createHash("sha256").update(accessToken, "utf8").digest("base64url");
  const builtIn = new DatabaseSync(file);
  const addon = new Database(file);
  // `?` as written by hand, `+?` as lib/db/sql/placeholders.ts writes it (better-sqlite3 re-plans a join on every
  // call with a bare `?`).
  const plus = lookup.replace("= ?", "= +?");
  const drivers = {
    "node:sqlite ?": builtIn.prepare(lookup),
    "node:sqlite +?": builtIn.prepare(plus),
    "better-sqlite3 ?": addon.prepare(lookup),
    "better-sqlite3 +?": addon.prepare(plus),
  };
  const lookups = CALLS * 20;
  console.log(`\nown-account lookup, ${lookups} sequential lookups per round (µs per lookup)`);
  for (let round = 1; round <= 3; round++) {
    const figures = Object.entries(drivers).map(([name, statement]) => {
      for (let i = 0; i < WARMUP; i++) statement.all(hash);
      const start = process.hrtime.bigint();
      for (let i = 0; i < lookups; i++) if (statement.all(hash).length !== 1) throw new Error(`${name}: token not found`);
      return `${name} ${(Number(process.hrtime.bigint() - start) / 1000 / lookups).toFixed(1)}`;
    });
    console.log(`round ${round}: ${figures.join(", ")}`);
  }
  builtIn.close();
  addon.close();
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });
  });
