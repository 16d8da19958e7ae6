import { insertCertificate } from "@/lib/certificates";
import { createMember } from "@/lib/members";
import { countMembers } from "@/lib/members/store";
import { insertPreRegistration } from "@/lib/tools/register-agent";
import { displayNameKey, normalizeEmail } from "@/lib/members/normalize";
import { DEMO_AGENT_NAMES, DEMO_CERTIFICATES, DEMO_MEMBERS, DEMO_PASSWORD } from "./data";

/** Loads the demo data when the database has no members; returns whether it loaded anything. */
export async function seedDemoDataIfEmpty(): Promise<boolean> {
  if ((await countMembers()) > 0) return false;
  const ids = new Map<string, string>();
  for (const m of DEMO_MEMBERS) {
    const member = await createMember({
      email: m.email,
      password: DEMO_PASSWORD,
      displayName: m.displayName,
      slug: m.slug,
      publicProfile: m.publicProfile,
      joinedAt: new Date(`${m.joinedAt}T00:00:00.000Z`),
      city: m.city,
      country: m.country,
      latitude: m.latitude,
      longitude: m.longitude,
    });
    ids.set(m.email, member.id);
  }
  for (const c of DEMO_CERTIFICATES) {
    const member = DEMO_MEMBERS.find((m) => m.email === c.holderEmail)!;
    await insertCertificate({
      id: c.id,
      memberId: ids.get(normalizeEmail(c.holderEmail)) ?? null,
      holderDisplayName: member.displayName,
      title: c.title,
      issuedAt: new Date(c.issuedAt),
      revokedAt: c.revoked ? new Date("2025-01-15T00:00:00.000Z") : null,
    });
  }
  for (const a of DEMO_AGENT_NAMES) {
    await insertPreRegistration({ agentName: a.agentName, agentNameKey: displayNameKey(a.agentName), description: a.description, reference: a.reference, createdAt: new Date() });
  }
  return true;
}
