// Local development keeps generated secrets in the database so restarts keep sessions and keys
// (CONTRACT.md §1); production always takes them from the environment (parseConfig enforces it).
import { randomBytes } from "node:crypto";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db";

let authSecret: Promise<string> | undefined;

async function loadOrCreate(name: string, create: () => string): Promise<string> {
  const db = getDb();
  const existing = await db.localSecret.findUnique({ where: { name } });
  if (existing) return existing.value;
  // Two instances racing at first start: the unique key lets one win; both then read the winner.
  await db.localSecret.createMany({ data: [{ name, value: create() }] }).catch(() => undefined);
  const stored = await db.localSecret.findUniqueOrThrow({ where: { name } });
  return stored.value;
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
