// Store of the Certificate table: certificates are issued by the demo seed (and, in a real deployment, by the
// community site's own process writing the same table); the service only reads them, live.
import { db, readDate, readOptionalDate } from "@/lib/db";

export interface CertificateRow {
  id: string;
  memberId: string | null;
  holderDisplayName: string;
  title: string;
  issuedAt: Date;
  revokedAt: Date | null;
}

export async function findCertificate(id: string): Promise<CertificateRow | null> {
  const rows = await db().query<Omit<CertificateRow, "issuedAt" | "revokedAt"> & { issuedAt: unknown; revokedAt: unknown }>(
    `SELECT "id", "memberId", "holderDisplayName", "title", "issuedAt", "revokedAt" FROM "Certificate" WHERE "id" = $1`,
    [id],
  );
  const row = rows[0];
  return row ? { ...row, issuedAt: readDate(row.issuedAt), revokedAt: readOptionalDate(row.revokedAt) } : null;
}

export async function insertCertificate(certificate: CertificateRow): Promise<void> {
  await db().execute(`INSERT INTO "Certificate" ("id", "memberId", "holderDisplayName", "title", "issuedAt", "revokedAt") VALUES ($1, $2, $3, $4, $5, $6)`, [
    certificate.id,
    certificate.memberId,
    certificate.holderDisplayName,
    certificate.title,
    certificate.issuedAt,
    certificate.revokedAt,
  ]);
}
