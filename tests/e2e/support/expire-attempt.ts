// Run with tsx (Playwright's loader cannot load the generated Prisma client): moves one claim attempt
// past its expiry in the e2e server's database, since that server's clock cannot be moved.
// Usage: DATABASE_URL=… tsx tests/e2e/support/expire-attempt.ts <cat_ token>
import { sha256 } from "../../../lib/crypto/secrets";
import { createDb } from "../../../lib/db/prisma";

async function main(): Promise<void> {
  const token = process.argv[2];
  const url = process.env.DATABASE_URL;
  if (!token || !url) throw new Error("usage: DATABASE_URL=… tsx expire-attempt.ts <attempt token>");
  const db = createDb(url);
  await db.claimAttempt.update({ where: { attemptTokenHash: sha256(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
  await db.$disconnect();
}

void main();
