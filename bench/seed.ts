// Fills a migrated bench database with realistic data by batched inserts, writes the 500-document
// CONTENT_DIR, and writes the fixtures the load scenarios rotate through (tokens, claim tokens,
// assertions, member names) to a JSON file. Run by bench/run.ts as a child process with DATABASE_URL,
// BASE_URL and SIGNING_KEYS set, so the assertions are signed by the project's own code with the key
// the server will verify with.
//
// DATABASE_URL is a SQLite file (better-sqlite3) or a PostgreSQL database (`pg`, bench/run.ts --postgres): the same
// rows either way, written by multi-row INSERTs in one transaction.
//
// Usage: tsx bench/seed.ts <fixtures.json> <content-dir> [--pending N]
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import path from "node:path";
import { signIdentityAssertion } from "@/lib/assertions";
import { newSecret, sha256 } from "@/lib/crypto/secrets";
import Database from "better-sqlite3";
import { Client } from "pg";
import { hashPassword } from "@/lib/members/passwords";
import { displayNameKey, slugify } from "@/lib/members/normalize";
import { ACCESS_TOKEN_LIFETIME_SECONDS, protectedResource } from "@/lib/tokens";
import { SCOPES } from "@/lib/schemas/service-auth";
import { sqliteFilePath } from "@/prisma/adapters";
import { benchDocuments, prng } from "./documents";

export interface BenchFixtures {
  /** Valid aca_ tokens, one per active delegation. */
  accessTokens: string[];
  /** clm_ tokens of pending registrations whose attempt is initiated and never polled. */
  pendingClaimTokens: string[];
  /** Identity assertions of the active delegations (for the JWT-bearer exchange). */
  assertions: string[];
  /** Display names and slugs of members with a public profile (lookup_member arguments). */
  publicNames: string[];
  /** Issue 52: per algorithm, one more token per active delegation, DPoP-bound to one key (its JWKs here: the load signs the proofs). */
  dpop: Record<BenchDpopAlgorithm, BenchDpopKey>;
  counts: { members: number; delegations: number; pending: number; documents: number };
}

/** ES256 (P-256 ECDSA) and Ed25519 (as oauth4webapi names EdDSA on Ed25519): the two kinds of key agents use. */
export type BenchDpopAlgorithm = "ES256" | "Ed25519";
export interface BenchDpopKey {
  privateJwk: JWK;
  publicJwk: JWK;
  accessTokens: string[];
}

const MEMBERS = 10_000;
const DELEGATIONS = 1_000;
const DOCUMENTS = 500;
// 500 rows × at most 15 columns stays under SQLite's 32,766 bound parameters.
const BATCH = 500;

const random = prng(20261121);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const FIRST = (
  "Ada Grace Alan Katherine Edsger Sofia Barbara Donald Frances John Margaret Dennis Ken Radia Tim Vint Bjarne Guido Linus Hedy " +
  "Mary Claude Leslie Niklaus Tony Robin Fran Jean Adele Shafi Joan Lynn Susan Ivan Carl Rosa Emmy Hannah Omar Priya " +
  "Aiko Mateo Lucia Noah Amara Kenji Ingrid Farah Diego Elena Tariq Yuki Nadia Hugo Chiara Kwame Leila Oskar Mei Rafael " +
  "Sanne Tomas Zara Anders Bianca Cyrus Daria Emil Freya Gustav Helga Ilya Jonas Kira Lars Maja Nils Olga Pavel Quinn " +
  "Rhea Stefan Thea Ulf Vera Wim Xenia Yara Zeno Astrid Bruno Clara Dmitri Esme Felix Greta Henrik Iris Jasper Lena"
).split(" ");
const LAST = (
  "Lovelace Hopper Turing Johnson Dijkstra Kovalevskaya Liskov Knuth Allen McCarthy Hamilton Ritchie Thompson Perlman Berners " +
  "Cerf Stroustrup Rossum Torvalds Lamarr Keller Shannon Lamport Wirth Hoare Milner Allen Sammet Goldberg Goldwasser Clarke Conway " +
  "Graham Sutherland Petri Noether Arendt Khayyam Patel Tanaka Garcia Rossi Okafor Mensah Suzuki Larsen Haddad Alvarez Ivanova " +
  "Nakamura Novak Moreau Bianchi Asante Karimi Lindqvist Chen Costa Jansen Horvat Ali Berg Romano Dubois Kowalski Petrov Sato " +
  "Fischer Nielsen Silva Meyer Andersson Popescu Jovanovic Kim Wagner Rahman Ortiz Murphy Schmidt Dahl Eriksen Fontaine Gallo " +
  "Hansen Ibarra Jensen Keller Lund Marino Nowak Olsen Pires Quiroga Reyes Strand Toivonen Urbina Vidal Weber Yilmaz Zimmermann"
).split(" ");
const CITIES: { city: string; country: string; lat: number; lon: number }[] = [
  { city: "Berlin", country: "DE", lat: 52.52, lon: 13.405 },
  { city: "Paris", country: "FR", lat: 48.857, lon: 2.352 },
  { city: "London", country: "GB", lat: 51.507, lon: -0.128 },
  { city: "Amsterdam", country: "NL", lat: 52.37, lon: 4.895 },
  { city: "Madrid", country: "ES", lat: 40.417, lon: -3.704 },
  { city: "Lisbon", country: "PT", lat: 38.722, lon: -9.139 },
  { city: "Rome", country: "IT", lat: 41.903, lon: 12.496 },
  { city: "Vienna", country: "AT", lat: 48.208, lon: 16.373 },
  { city: "Stockholm", country: "SE", lat: 59.329, lon: 18.069 },
  { city: "Warsaw", country: "PL", lat: 52.23, lon: 21.012 },
  { city: "New York", country: "US", lat: 40.713, lon: -74.006 },
  { city: "San Francisco", country: "US", lat: 37.775, lon: -122.419 },
  { city: "Toronto", country: "CA", lat: 43.653, lon: -79.383 },
  { city: "Mexico City", country: "MX", lat: 19.433, lon: -99.133 },
  { city: "São Paulo", country: "BR", lat: -23.551, lon: -46.633 },
  { city: "Buenos Aires", country: "AR", lat: -34.604, lon: -58.382 },
  { city: "Lagos", country: "NG", lat: 6.524, lon: 3.379 },
  { city: "Nairobi", country: "KE", lat: -1.292, lon: 36.822 },
  { city: "Cairo", country: "EG", lat: 30.044, lon: 31.236 },
  { city: "Mumbai", country: "IN", lat: 19.076, lon: 72.878 },
  { city: "Bengaluru", country: "IN", lat: 12.972, lon: 77.595 },
  { city: "Singapore", country: "SG", lat: 1.352, lon: 103.82 },
  { city: "Tokyo", country: "JP", lat: 35.676, lon: 139.65 },
  { city: "Seoul", country: "KR", lat: 37.567, lon: 126.978 },
  { city: "Sydney", country: "AU", lat: -33.869, lon: 151.209 },
  { city: "Auckland", country: "NZ", lat: -36.848, lon: 174.763 },
];

const databaseUrl = process.env.DATABASE_URL ?? "";
const onPostgres = /^postgres(ql)?:\/\//.test(databaseUrl);
if (!onPostgres && !databaseUrl.startsWith("file:")) throw new Error("bench/seed.ts fills a SQLite (file:…) or PostgreSQL (postgresql://…) database");

type Row = Record<string, string | number | boolean | Date | null>;

/** Prisma's SQLite adapter stores DateTime as ISO 8601 text with an explicit offset, booleans as 0/1. */
function sqliteValue(value: Row[string]): string | number | null {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/** Writes one table's rows: multi-row INSERTs of BATCH rows, all in one transaction. */
type RowWriter = (table: string, columns: string[], chunks: Row[][]) => Promise<void>;

const insertSql = (table: string, columns: string[], rows: number, placeholder: (index: number) => string): string =>
  `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${Array.from(
    { length: rows },
    (_, r) => `(${columns.map((_, c) => placeholder(r * columns.length + c)).join(", ")})`,
  ).join(", ")}`;

/**
 * SQLite: better-sqlite3 directly (Prisma's createMany takes over a minute for these ~75,000 rows).
 */
function sqliteWriter(): { write: RowWriter; close: () => Promise<void> } {
  const sqlite = new Database(sqliteFilePath(databaseUrl));
  const write: RowWriter = async (table, columns, chunks) => {
    const full = sqlite.prepare(insertSql(table, columns, BATCH, () => "?"));
    sqlite.transaction(() => {
      for (const chunk of chunks) {
        const values = chunk.flatMap((row) => columns.map((c) => sqliteValue(row[c] ?? null)));
        (chunk.length === BATCH ? full : sqlite.prepare(insertSql(table, columns, chunk.length, () => "?"))).run(values);
      }
    })();
  };
  return { write, close: async () => void sqlite.close() };
}

/**
 * PostgreSQL: `pg` (the driver of Prisma's pg adapter). DateTime columns are `timestamp(3)` without a zone, which
 * Prisma reads as UTC: the values go in as UTC text, not through `pg`'s local-time conversion of a Date.
 */
function postgresWriter(): { write: RowWriter; close: () => Promise<void> } {
  const client = new Client({ connectionString: databaseUrl });
  const connected = client.connect();
  const value = (v: Row[string]): string | number | boolean | null => (v instanceof Date ? v.toISOString().replace("T", " ").replace("Z", "") : v);
  const write: RowWriter = async (table, columns, chunks) => {
    await connected;
    await client.query("BEGIN");
    try {
      for (const chunk of chunks) {
        await client.query(
          insertSql(table, columns, chunk.length, (i) => `$${i + 1}`),
          chunk.flatMap((row) => columns.map((c) => value(row[c] ?? null))),
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  };
  return { write, close: () => connected.then(() => client.end()) };
}

const writer = onPostgres ? postgresWriter() : sqliteWriter();

/** Every row of one table, in chunks of BATCH, in one transaction. */
async function insertRows(table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const chunks: Row[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) chunks.push(rows.slice(i, i + BATCH));
  await writer.write(table, Object.keys(rows[0]!), chunks);
}

async function seedMembers(): Promise<{ ids: string[]; emails: string[]; publicNames: string[] }> {
  // One scrypt hash for everyone: the bench never signs in, and 10,000 scrypt runs would take minutes.
  const passwordHash = await hashPassword("bench-password-not-used");
  const ids: string[] = [];
  const emails: string[] = [];
  const publicNames: string[] = [];
  const rows = [];
  const seen = new Set<string>();
  for (let i = 0; i < MEMBERS; i++) {
    let displayName = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
    if (seen.has(displayName)) displayName = `${displayName} ${i}`;
    seen.add(displayName);
    const slug = `${slugify(displayName)}-${i}`;
    const email = `${slug}@bench.example`;
    const id = randomUUID();
    const place = pick(CITIES);
    const publicProfile = i % 5 !== 0;
    const joinedAt = new Date(Date.UTC(2015 + Math.floor(random() * 11), Math.floor(random() * 12), 1 + Math.floor(random() * 28)));
    rows.push({
      id,
      email,
      emailVerified: true,
      passwordHash,
      displayName,
      displayNameKey: displayNameKey(displayName),
      slug,
      publicProfile,
      joinedAt,
      city: place.city,
      country: place.country,
      latitude: place.lat + (random() - 0.5) * 0.2,
      longitude: place.lon + (random() - 0.5) * 0.2,
      createdAt: joinedAt,
    });
    ids.push(id);
    emails.push(email);
    if (publicProfile) publicNames.push(i % 2 === 0 ? displayName : slug);
  }
  await insertRows("Member", rows);
  return { ids, emails, publicNames };
}

async function seedDelegations(
  memberIds: string[],
  emails: string[],
  dpopJkts: Record<BenchDpopAlgorithm, string>,
): Promise<{ accessTokens: string[]; assertions: string[]; dpopAccessTokens: Record<BenchDpopAlgorithm, string[]> }> {
  const now = new Date();
  const scope = SCOPES.join(" ");
  const resource = protectedResource();
  const registrations = [];
  const attempts = [];
  const delegations = [];
  const tokens = [];
  const accessTokens: string[] = [];
  const dpopAccessTokens: Record<BenchDpopAlgorithm, string[]> = { ES256: [], Ed25519: [] };
  const assertionInputs = [];
  for (let i = 0; i < DELEGATIONS; i++) {
    const m = (i * 7) % memberIds.length; // spread over the members
    const memberId = memberIds[m]!;
    const registrationId = randomUUID();
    const delegationId = randomUUID();
    const clientName = `Bench Agent ${i}`;
    const approvedAt = new Date(now.getTime() - 60_000);
    registrations.push({
      id: registrationId,
      registrationType: "service_auth",
      loginHint: emails[m]!,
      clientName,
      scope,
      claimTokenHash: sha256(newSecret("clm_")),
      claimExpiresAt: new Date(now.getTime() + 24 * 3600 * 1000),
      status: "active",
      createdAt: approvedAt,
      updatedAt: approvedAt,
    });
    attempts.push({
      id: randomUUID(),
      registrationId,
      attemptTokenHash: sha256(newSecret("cat_")),
      userCodeHash: sha256(String(10_000_000 + i)),
      status: "approved",
      expiresAt: new Date(approvedAt.getTime() + 600_000),
      interval: 5,
      decidedAt: approvedAt,
      decidedByMemberId: memberId,
      createdAt: approvedAt,
    });
    delegations.push({ id: delegationId, registrationId, memberId, clientName, scope, status: "active", approvedAt });
    // One bearer token, and one bound to each DPoP key of the run.
    const tokenRow = (token: string, dpopJkt: string | null) => ({
      id: randomUUID(),
      tokenHash: sha256(token),
      registrationId,
      delegationId,
      memberId,
      scope,
      resource,
      grant: "claim",
      dpopJkt,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000),
      createdAt: now,
    });
    const token = newSecret("aca_");
    accessTokens.push(token);
    tokens.push(tokenRow(token, null));
    for (const alg of ["ES256", "Ed25519"] as const) {
      const bound = newSecret("aca_");
      dpopAccessTokens[alg].push(bound);
      tokens.push(tokenRow(bound, dpopJkts[alg]));
    }
    assertionInputs.push({ memberId, registrationId, scope, clientName, jkt: null });
  }
  await insertRows("Registration", registrations);
  await insertRows("ClaimAttempt", attempts);
  await insertRows("Delegation", delegations);
  await insertRows("AccessToken", tokens);
  const assertions: string[] = [];
  for (const input of assertionInputs) assertions.push((await signIdentityAssertion(input)).assertion);
  return { accessTokens, assertions, dpopAccessTokens };
}

/**
 * Pending registrations, each with one initiated, never-polled attempt. The poll scenario rotates through
 * them, so each is polled at most once per `count / rate` seconds (must stay above the 5 s interval).
 * The attempts live 2 hours instead of 600 s so the scenario order of a long run cannot expire them.
 */
async function seedPending(count: number, emails: string[]): Promise<string[]> {
  const now = new Date();
  const scope = SCOPES.join(" ");
  const claimTokens: string[] = [];
  const registrations = [];
  const attempts = [];
  for (let i = 0; i < count; i++) {
    const registrationId = randomUUID();
    const claimToken = newSecret("clm_");
    claimTokens.push(claimToken);
    registrations.push({
      id: registrationId,
      registrationType: "service_auth",
      loginHint: emails[(i * 13) % emails.length]!,
      clientName: `Pending Agent ${i}`,
      scope,
      claimTokenHash: sha256(claimToken),
      claimExpiresAt: new Date(now.getTime() + 24 * 3600 * 1000),
      status: "pending",
      createdAt: now,
      updatedAt: now,
    });
    attempts.push({
      id: randomUUID(),
      registrationId,
      attemptTokenHash: sha256(newSecret("cat_")),
      userCodeHash: sha256(String(20_000_000 + i)),
      status: "initiated",
      expiresAt: new Date(now.getTime() + 2 * 3600 * 1000),
      interval: 5,
      createdAt: now,
    });
  }
  await insertRows("Registration", registrations);
  await insertRows("ClaimAttempt", attempts);
  return claimTokens;
}

/** 500 generated documents plus the project's own (so every docs page of the app still resolves). */
function writeDocuments(dir: string): number {
  fs.mkdirSync(dir, { recursive: true });
  const own = path.join(process.cwd(), "content", "docs");
  for (const f of fs.readdirSync(own)) if (f.endsWith(".md")) fs.copyFileSync(path.join(own, f), path.join(dir, f));
  for (const [file, markdown] of benchDocuments(DOCUMENTS, random)) fs.writeFileSync(path.join(dir, file), markdown);
  return DOCUMENTS;
}

async function main(): Promise<void> {
  const [fixturesFile, contentDirArg, ...rest] = process.argv.slice(2);
  if (!fixturesFile || !contentDirArg) throw new Error("usage: tsx bench/seed.ts <fixtures.json> <content-dir> [--pending N]");
  const pendingIndex = rest.indexOf("--pending");
  const pendingCount = pendingIndex === -1 ? 30_000 : Number(rest[pendingIndex + 1]);
  const documents = writeDocuments(contentDirArg);
  const members = await seedMembers();
  const dpopKeys = { ES256: await generateKeyPair("ES256", { extractable: true }), Ed25519: await generateKeyPair("Ed25519", { extractable: true }) };
  const publicJwks = { ES256: await exportJWK(dpopKeys.ES256.publicKey), Ed25519: await exportJWK(dpopKeys.Ed25519.publicKey) };
  const jkts = { ES256: await calculateJwkThumbprint(publicJwks.ES256, "sha256"), Ed25519: await calculateJwkThumbprint(publicJwks.Ed25519, "sha256") };
  const { accessTokens, assertions, dpopAccessTokens } = await seedDelegations(members.ids, members.emails, jkts);
  const dpopKey = async (alg: BenchDpopAlgorithm): Promise<BenchDpopKey> => ({
    privateJwk: await exportJWK(dpopKeys[alg].privateKey),
    publicJwk: publicJwks[alg],
    accessTokens: dpopAccessTokens[alg],
  });
  const pendingClaimTokens = await seedPending(pendingCount, members.emails);
  const fixtures: BenchFixtures = {
    accessTokens,
    pendingClaimTokens,
    assertions,
    publicNames: members.publicNames,
    dpop: { ES256: await dpopKey("ES256"), Ed25519: await dpopKey("Ed25519") },
    counts: { members: members.ids.length, delegations: accessTokens.length, pending: pendingClaimTokens.length, documents },
  };
  fs.writeFileSync(fixturesFile, JSON.stringify(fixtures));
  await writer.close();
}

main().catch((error: unknown) => {
  console.error(`bench seed failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
