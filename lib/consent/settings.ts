// Store of the ConsentSetting table: the one module that writes it. What a member chose about agent requests on
// /account (issue 53). No row is both off, which is SPEC's flow unchanged.
import { db, readBoolean } from "@/lib/db";

export interface ConsentSettings {
  /** RFC 10027 §6.1.7: only agents with a verified Web Bot Auth origin may be approved. */
  verifiedAgentsOnly: boolean;
  /** RFC 10027 §6.1.16: an approved unsigned agent must send back a code shown to the member. */
  confirmUnverifiedAgents: boolean;
}

export const DEFAULT_CONSENT_SETTINGS: ConsentSettings = Object.freeze({ verifiedAgentsOnly: false, confirmUnverifiedAgents: false });

export async function consentSettingsOf(memberId: string): Promise<ConsentSettings> {
  const rows = await db().query<{ verifiedAgentsOnly: unknown; confirmUnverifiedAgents: unknown }>(
    `SELECT "verifiedAgentsOnly", "confirmUnverifiedAgents" FROM "ConsentSetting" WHERE "memberId" = $1`,
    [memberId],
  );
  const row = rows[0];
  return row ? { verifiedAgentsOnly: readBoolean(row.verifiedAgentsOnly), confirmUnverifiedAgents: readBoolean(row.confirmUnverifiedAgents) } : DEFAULT_CONSENT_SETTINGS;
}

export function saveConsentSettings(memberId: string, settings: ConsentSettings, now: Date): Promise<number> {
  return db().execute(
    `INSERT INTO "ConsentSetting" ("memberId", "verifiedAgentsOnly", "confirmUnverifiedAgents", "updatedAt") VALUES ($1, $2, $3, $4)
     ON CONFLICT ("memberId") DO UPDATE SET "verifiedAgentsOnly" = excluded."verifiedAgentsOnly", "confirmUnverifiedAgents" = excluded."confirmUnverifiedAgents", "updatedAt" = excluded."updatedAt"`,
    [memberId, settings.verifiedAgentsOnly, settings.confirmUnverifiedAgents, now],
  );
}
