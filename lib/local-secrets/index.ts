// Store of the LocalSecret table. Local development keeps generated secrets in the database so restarts keep
// sessions (CONTRACT.md §1); production always takes them from the environment (lib/config enforces it).
import { hkdfSync, randomBytes } from "node:crypto";
import { getConfig } from "@/lib/config";
import { db, isUniqueViolation } from "@/lib/db";

let authSecret: Promise<string> | undefined;

async function storedValue(name: string): Promise<string | null> {
  const rows = await db().query<{ value: string }>(`SELECT "value" FROM "LocalSecret" WHERE "name" = $1`, [name]);
  return rows[0]?.value ?? null;
}

async function loadOrCreate(name: string, create: () => string): Promise<string> {
  const existing = await storedValue(name);
  if (existing !== null) return existing;
  try {
    await db().execute(`INSERT INTO "LocalSecret" ("name", "value", "createdAt") VALUES ($1, $2, $3)`, [name, create(), new Date()]);
  } catch (error) {
    // Two instances racing at first start: the unique key lets one win; both then read the winner.
    if (!isUniqueViolation(error)) throw error;
  }
  const stored = await storedValue(name);
  if (stored === null) throw new Error(`the local secret ${name} was not stored`);
  return stored;
}

export function getAuthSecret(): Promise<string> {
  const configured = getConfig().authSecret;
  if (configured) return Promise.resolve(configured);
  authSecret ??= loadOrCreate("AUTH_SECRET", () => randomBytes(32).toString("base64url")).catch((error: unknown) => {
    authSecret = undefined;
    throw error;
  });
  return authSecret;
}

/**
 * A key of its own for one purpose, derived from AUTH_SECRET by HKDF-SHA256 with the purpose as `info` (RFC 5869):
 * no two purposes share key material, and none is AUTH_SECRET itself. The same on every instance of a deployment
 * (they share AUTH_SECRET); changing AUTH_SECRET changes every derived key.
 */
export async function derivedKey(purpose: `agent-gate ${string} v${number}`): Promise<Buffer> {
  return Buffer.from(hkdfSync("sha256", await getAuthSecret(), Buffer.alloc(0), purpose, 32));
}
