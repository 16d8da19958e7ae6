// Agent-skills discovery index (draft 0.2.0, STANDARDS.md §13): SKILL.md documents from content/skills,
// served by this service with {base} filled in; each index entry carries the sha256 of the served bytes.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";

export const SKILLS_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/** Skills about the authorization flow are links to authorization: published only in public release mode. */
const AUTHORIZATION_SKILLS = new Set(["delegated-account-access"]);

export interface SkillDocument {
  name: string;
  description: string;
  url: string;
  body: string;
  digest: string;
}

function skillsDirectory(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), "content", "skills");
}

function frontMatterValue(source: string, key: string): string {
  const match = /^---\n([\s\S]*?)\n---/.exec(source);
  const line = match?.[1]?.split("\n").find((l) => l.startsWith(`${key}:`));
  return line ? line.slice(key.length + 1).trim() : "";
}

let cache: { baseUrl: string; skills: SkillDocument[] } | undefined;

function loadAll(): SkillDocument[] {
  const { baseUrl } = getConfig();
  if (cache?.baseUrl === baseUrl) return cache.skills;
  const dir = skillsDirectory();
  const skills = fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, "SKILL.md")))
    .sort()
    .map((name) => {
      const body = fs.readFileSync(path.join(dir, name, "SKILL.md"), "utf8").replaceAll("{base}", baseUrl);
      return {
        name: frontMatterValue(body, "name") || name,
        description: frontMatterValue(body, "description"),
        url: `${baseUrl}/.well-known/agent-skills/${name}/SKILL.md`,
        body,
        digest: `sha256:${createHash("sha256").update(body, "utf8").digest("hex")}`,
      };
    });
  cache = { baseUrl, skills };
  return skills;
}

/** The skills published in the current release mode. */
export function publishedSkills(): SkillDocument[] {
  const publicAuth = isAuthDiscoveryPublic();
  return loadAll().filter((s) => publicAuth || !AUTHORIZATION_SKILLS.has(s.name));
}

export function findSkill(name: string): SkillDocument | undefined {
  return publishedSkills().find((s) => s.name === name);
}

export function skillsIndex() {
  return {
    $schema: SKILLS_SCHEMA,
    skills: publishedSkills().map((s) => ({ name: s.name, type: "skill-md" as const, description: s.description, url: s.url, digest: s.digest })),
  };
}
