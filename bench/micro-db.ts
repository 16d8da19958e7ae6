// Mean time per call of the database side of the hot auth paths, in-process, without HTTP:
// verifyAccessToken, pollClaim on a pending claim, and exchangeIdentityAssertion, on a throwaway SQLite
// file (migrated from prisma/migrations, one member). Calls run one after another, so the figure is the
// latency of one call (wall time, which on SQLite is CPU time) — compare runs on the same machine only.
// Then the SQLite drivers side by side on the same file: the own-account lookup (the access-token store's
// four-table join) through better-sqlite3 13, which the app and Prisma's adapter use, and through node:sqlite,
// each with a bare `?` and with the `+?` the app writes. And the stores' raw SQL against Prisma (issue 33 item 4:
// raw SQL on the hot paths is a speed layer whose alternative is a library): the own-account lookup and the
// pending claim poll's two reads, through the app's stores and through Prisma's client with the better-sqlite3
// adapter on the same file, alternating rounds.
//
// Usage: npx tsx bench/micro-db.ts [calls per function, default 1000]
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { isDeepStrictEqual } from "node:util";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { sha256 } from "@/lib/crypto/secrets";
import { PrismaClient } from "@/lib/generated/sqlite/client";
import { median } from "./rows";

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

  // More granted tokens for the ORM comparison, so its lookups go round several rows as the bench's do.
  const tokens = [granted.accessToken];
  while (tokens.length < 50) {
    const next = await register();
    await decideAttempt({ attemptToken: next.attempt.attemptToken, member, userCode: next.attempt.userCode, decision: "approve" }, clock);
    const poll = await pollClaim(next.claimToken, clock);
    if (!poll.ok) throw new Error(`setup poll: ${poll.error}`);
    tokens.push(poll.accessToken);
  }
  await compareOrm(tokens, pending);
  const { closeConnection } = await import("@/lib/db");
  await closeConnection();
  compareDrivers(granted.accessToken);
}

/** How long a run of awaited reads takes: µs per read. */
async function timeReads(count: number, read: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await read(i);
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

/**
 * Raw SQL against Prisma on the hot paths' reads, alternating rounds (the first side moves each round): the
 * own-account lookup (the access-token store's join, by token hash) and the pending claim poll's reads (the
 * registration by claim-token hash, then its current attempt), each through the app's store functions, through a
 * plain Prisma client with the adapter lib/db/prisma.ts uses, and through that module's guarded client (the
 * tests' and scripts'). Each Prisma read selects the store's columns and gives the store's row, checked first.
 */
async function compareOrm(accessTokens: readonly string[], claimTokens: readonly string[]): Promise<void> {
  const { findTokenGrant } = await import("@/lib/grants/access-tokens");
  const { findRegistrationByClaimTokenHash } = await import("@/lib/grants/registrations");
  const { currentAttempt } = await import("@/lib/grants/claim-attempts");
  const { createDb } = await import("@/lib/db/prisma");
  const tokenHashes = accessTokens.map(sha256);
  const claimHashes = claimTokens.map(sha256);

  const prismaGrant = async (client: PrismaClient, tokenHash: string) => {
    const token = await client.accessToken.findUnique({
      where: { tokenHash },
      select: {
        id: true,
        memberId: true,
        registrationId: true,
        delegationId: true,
        scope: true,
        resource: true,
        expiresAt: true,
        revokedAt: true,
        member: { select: { email: true } },
        // The token's registration is its delegation's (one to one): the schema has no token → registration relation.
        delegation: { select: { clientName: true, status: true, lastUsedAt: true, registration: { select: { registrationType: true, status: true } } } },
      },
    });
    if (!token) return null;
    const { member, delegation, ...columns } = token;
    return {
      ...columns,
      memberEmail: member.email,
      clientName: delegation.clientName,
      delegationStatus: delegation.status,
      lastUsedAt: delegation.lastUsedAt,
      registrationType: delegation.registration.registrationType,
      registrationStatus: delegation.registration.status,
    };
  };
  const prismaPoll = async (client: PrismaClient, claimTokenHash: string) => {
    const registration = await client.registration.findUnique({
      where: { claimTokenHash },
      select: { id: true, loginHint: true, clientName: true, scope: true, claimExpiresAt: true, status: true },
    });
    if (!registration) return null;
    const attempt = await client.claimAttempt.findFirst({
      where: { registrationId: registration.id, status: { not: "closed" } },
      orderBy: { createdAt: "desc" },
      select: { id: true, registrationId: true, status: true, expiresAt: true, interval: true, lastPolledAt: true },
    });
    return { registration, attempt };
  };
  const rawPoll = async (claimTokenHash: string) => {
    const registration = await findRegistrationByClaimTokenHash(claimTokenHash);
    if (!registration) return null;
    return { registration, attempt: await currentAttempt(registration.id) };
  };

  const plain = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: `file:${file}` }) });
  const guarded = createDb(`file:${file}`);
  const reads = [
    {
      name: "own-account lookup",
      sides: {
        "raw SQL (store)": (i: number) => findTokenGrant(tokenHashes[i % tokenHashes.length]!),
        Prisma: (i: number) => prismaGrant(plain, tokenHashes[i % tokenHashes.length]!),
        "Prisma, guarded": (i: number) => prismaGrant(guarded, tokenHashes[i % tokenHashes.length]!),
      },
    },
    {
      name: "claim poll reads (pending)",
      sides: {
        "raw SQL (store)": (i: number) => rawPoll(claimHashes[i % claimHashes.length]!),
        Prisma: (i: number) => prismaPoll(plain, claimHashes[i % claimHashes.length]!),
        "Prisma, guarded": (i: number) => prismaPoll(guarded, claimHashes[i % claimHashes.length]!),
      },
    },
  ];
  // The same rows every way, or the comparison means nothing.
  for (const read of reads) {
    for (const i of [0, 1, 2]) {
      const [expected, ...others] = await Promise.all(Object.values(read.sides).map((side) => side(i)));
      if (!expected || !others.every((row) => isDeepStrictEqual(row, expected))) throw new Error(`${read.name}: the sides read different rows`);
    }
  }

  const rounds = 5;
  const count = CALLS;
  console.log(`\nraw SQL vs Prisma, ${count} sequential reads per side and round, ${rounds} rounds alternating (µs per read)`);
  const table: string[] = [];
  for (const read of reads) {
    const sides = Object.entries(read.sides);
    const figures = new Map<string, number[]>(sides.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      const line: string[] = [];
      for (let k = 0; k < sides.length; k++) {
        const [name, side] = sides[(round + k) % sides.length]!;
        for (let i = 0; i < WARMUP; i++) await side(i);
        const us = await timeReads(count, side);
        figures.get(name)!.push(us);
        line.push(`${name} ${us.toFixed(1)}`);
      }
      console.log(`${read.name}, round ${round + 1}: ${line.join(", ")}`);
    }
    const medians = sides.map(([name]) => median(figures.get(name)!));
    table.push(`| ${read.name} | ${medians.map((m) => m.toFixed(1)).join(" | ")} | ${(medians[1]! / medians[0]!).toFixed(2)}× |`);
  }
  console.log(`\n| read (µs, median of ${rounds} rounds) | ${Object.keys(reads[0]!.sides).join(" | ")} | Prisma ÷ raw SQL |`);
  console.log(
    `|---|${Object.keys(reads[0]!.sides)
      .map(() => "---:|")
      .join("")}---:|`,
  );
  for (const line of table) console.log(line);
  await plain.$disconnect();
  await guarded.$disconnect();
}

/** The same statement and token through both drivers, alternating, three rounds: µs per lookup. */
function compareDrivers(accessToken: string): void {
  const lookup = `SELECT t."id", t."memberId", t."registrationId", t."delegationId", t."scope", t."resource", t."expiresAt", t."revokedAt",
      m."email" AS "memberEmail", d."clientName", d."status" AS "delegationStatus", d."lastUsedAt", r."registrationType", r."status" AS "registrationStatus"
    FROM "AccessToken" t JOIN "Member" m ON m."id" = t."memberId" JOIN "Delegation" d ON d."id" = t."delegationId"
    JOIN "Registration" r ON r."id" = t."registrationId" WHERE t."tokenHash" = ?`;
  const hash = sha256(accessToken);
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
