// Issue 51: the published docs' sample answers show what the demo deployment answers: its members, certificates and
// count (lib/demo/data.ts), never people or values it does not have.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_CERTIFICATES, DEMO_MEMBERS } from "@/lib/demo/data";
import { ROOT } from "../support/databases";

const DOCS = path.join(ROOT, "content", "docs");
const pages = fs
  .readdirSync(DOCS)
  .filter((file) => file.endsWith(".md"))
  .map((file) => ({ file, text: fs.readFileSync(path.join(DOCS, file), "utf8") }));

/** Every JSON value of the pages' ```json blocks that parses (after the deployment placeholder is filled in). */
function jsonSamples(): { file: string; value: unknown }[] {
  const samples: { file: string; value: unknown }[] = [];
  for (const { file, text } of pages) {
    for (const block of text.matchAll(/```json\n([\s\S]*?)\n```/g)) {
      try {
        samples.push({ file, value: JSON.parse(block[1]!.replaceAll("{{BASE_URL}}", "https://gate.example.com")) });
      } catch {
        // A sample with "…" in it: its names are checked by the text scans below.
      }
    }
  }
  return samples;
}

function objectsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objectsOf);
  if (typeof value !== "object" || value === null) return [];
  return [value as Record<string, unknown>, ...Object.values(value).flatMap(objectsOf)];
}

const memberBySlug = new Map<string, (typeof DEMO_MEMBERS)[number]>(DEMO_MEMBERS.map((m) => [m.slug, m]));
const names = new Set<string>(DEMO_MEMBERS.map((m) => m.displayName));

describe("the published docs' sample answers come from the demo data", () => {
  const objects = jsonSamples().flatMap(({ file, value }) => objectsOf(value).map((object) => ({ file, object })));

  it("has samples to check", () => {
    expect(objects.filter(({ object }) => "holder_display_name" in object).length).toBeGreaterThanOrEqual(2);
    expect(objects.filter(({ object }) => "member_since" in object).length).toBeGreaterThanOrEqual(1);
  });

  it("a member found is a demo member with a public profile, as lookup_member answers for them", () => {
    for (const { file, object } of objects.filter(({ object }) => "member_since" in object)) {
      const member = memberBySlug.get(String(object.slug));
      expect(member, `${file}: ${String(object.slug)}`).toBeDefined();
      expect(member!.publicProfile).toBe(true);
      expect(object).toEqual({
        display_name: member!.displayName,
        slug: member!.slug,
        member_since: member!.joinedAt.slice(0, 7),
        profile_url: `https://gate.example.com/members/${member!.slug}`,
      });
    }
  });

  it("a certificate is a demo certificate, with its holder, title and date", () => {
    for (const { file, object } of objects.filter(({ object }) => "holder_display_name" in object)) {
      const certificate = DEMO_CERTIFICATES.find((c) => c.id === object.id);
      expect(certificate, `${file}: ${String(object.id)}`).toBeDefined();
      const holder = DEMO_MEMBERS.find((m) => m.email === certificate!.holderEmail)!;
      expect(object, file).toEqual({ id: certificate!.id, holder_display_name: holder.displayName, title: certificate!.title, issued_at: certificate!.issuedAt });
    }
  });

  it("the member count is the demo's, an account's e-mail a demo member's", () => {
    for (const { file, object } of objects) {
      if ("member_count" in object) expect(object.member_count, file).toBe(DEMO_MEMBERS.length);
      if ("email" in object && "account_id" in object)
        expect(
          DEMO_MEMBERS.map((m) => m.email as string),
          file,
        ).toContain(object.email);
    }
  });

  it("every e-mail address, certificate id and quoted display name in the docs' text is the demo's", () => {
    const emails = new Set<string>([...DEMO_MEMBERS.map((m) => m.email as string), "you@example.com"]);
    const certificates = new Set<string>(DEMO_CERTIFICATES.map((c) => c.id));
    for (const { file, text } of pages) {
      for (const [email] of text.matchAll(/[A-Za-z0-9._%+-]+@example\.(?:com|org)/g)) expect(emails, `${file}: ${email}`).toContain(email);
      for (const [id] of text.matchAll(/\bAG-\d{4}-\d{4}\b/g)) expect(certificates, `${file}: ${id}`).toContain(id);
      for (const [, name] of text.matchAll(/"(?:holder_)?display_name":\s*"([^"]+)"/g)) expect(names, `${file}: ${name}`).toContain(name);
    }
  });
});
