// Plain-language text parts (issue 42): how a sentence that is not one of the literal text forms of CONTRACT.md §9
// ("lookup_member <name>", "get_community_stats", "verify_certificate <id>") is read. There is no model behind the
// agent, so the reading is deterministic: each read-only skill has a few patterns below (content/docs/a2a.md has
// the same table in words). A text that matches exactly one skill runs it; a text that matches none, or more than
// one, gets the help answer (the skills, one example each). register_agent is never run from words: it needs the
// user's explicit authorization as `"user_authorized": true` in a data part, so a text asking to register gets the
// help answer that says so.
import { COMMUNITY_TOOLS } from "@/lib/tools";

/** The skills a sentence can run. */
export type PhraseSkill = "lookup_member" | "get_community_stats" | "verify_certificate";

export type PhraseReading =
  | { kind: "run"; skill: PhraseSkill; input: Record<string, string> }
  | { kind: "help"; reason: "unmatched" | "register" }
  | { kind: "help"; reason: "ambiguous"; skills: PhraseSkill[] };

/** Longer texts are not questions this agent reads (and the patterns stay cheap). */
export const MAX_PHRASE_LENGTH = 300;

/** One line of the help answer per skill, in the registry's order; each sentence example is matched by the rules below. */
const HELP_LINES: Readonly<Record<string, { summary: string; sentence?: string }>> = {
  lookup_member: { summary: "one public member, by exact display name or slug", sentence: "look up Ada Lovelace" },
  get_community_stats: { summary: "the number of members", sentence: "how many members are there?" },
  register_agent: { summary: "pre-registers an agent name, free and non-binding" },
  verify_certificate: { summary: "whether a certificate id is currently valid", sentence: "is AG-2025-0001 valid?" },
};

/** The sentence example the help answer gives for a skill (none for register_agent). */
export function sentenceExample(skill: string): string | undefined {
  return Object.hasOwn(HELP_LINES, skill) ? HELP_LINES[skill]?.sentence : undefined;
}

// ---- the rules, per skill ----

/** A certificate id as the community prints them (AG-2025-0001); any case. */
const CERTIFICATE_ID = /\b[a-z]{2,8}-\d{4}-\d{1,8}\b/gi;
/** "verify certificate X", "check the certificate id X", with an id of the tool's own rule after the word certificate. */
const VERIFY_NAMED_ID = /^(?:verify|check|validate)\s+(?:the\s+)?(?:certificate|cert)(?:\s+(?:id|number|no\.?))?\s+(\S{1,64})$/i;

const STATS_PATTERNS: readonly RegExp[] = [
  /\bhow many (?:community )?(?:members|people|persons|users)\b/i,
  /\b(?:member|members|membership)[ -]count\b/i,
  /\b(?:total )?number of (?:community )?members\b/i,
  /\bcount (?:of )?(?:the )?members\b/i,
  /\b(?:community )?stat(?:istic)?s\b/i,
  /\bhow (?:big|large) is (?:the|this|your) community\b/i,
  /\b(?:community size|size of (?:the|this|your) community)\b/i,
];

/** Each captures the name or slug asked for. */
const LOOKUP_PATTERNS: readonly RegExp[] = [
  // look up Ada Lovelace · find the member named Ada Lovelace · look up the member with the slug grace-hopper · show me the profile of ada-lovelace
  /^(?:look\s?up|find|show(?:\s+me)?|get|search\s+for)\s+(?:(?:the\s+)?(?:community\s+)?(?:member|profile|person|user)(?:\s+(?:profile|page))?(?:\s+(?:of|for))?\s+)?(?:(?:with\s+(?:the\s+)?|whose\s+)?(?:slug|display\s+name|name)(?:\s+is)?\s+|named\s+|called\s+)?(.+)$/i,
  // who is ada-lovelace · who's Ada Lovelace
  /^who(?:'s|’s|\s+is)\s+(.+)$/i,
  // is Ada Lovelace a member (of the community)
  /^is\s+(.+?)\s+(?:a\s+)?(?:community\s+)?member(?:\s+(?:of|in)\s+(?:the|this|your)\s+community)?$/i,
  // is there a member named Ada Lovelace
  /^is\s+there\s+(?:a\s+)?member\s+(?:named|called)\s+(.+)$/i,
  // tell me about Ada Lovelace · profile of ada-lovelace
  /^(?:tell\s+me\s+about|profile\s+(?:of|for))\s+(?:the\s+member\s+)?(.+)$/i,
];

/** Words that make a captured "name" a description instead ("who is the oldest member", "find all members"). */
const NOT_A_NAME = new Set(
  (
    "the a an all any every some my your our their his her its this that these those you me i it there here what who which " +
    "everyone everybody anyone someone somebody people member members community certificate certificates count stats statistics list agent agents"
  ).split(" "),
);
/** A display name or slug: letters, digits, apostrophes, dots, hyphens, at most six words. */
const NAME_SHAPE = /^[\p{L}\p{M}\p{N}'’.-]+(?: [\p{L}\p{M}\p{N}'’.-]+){0,5}$/u;

const REGISTER_INTENT = /\b(?:pre-?)?regist(?:er|ration)\b|\bsign(?:\s|-)?up\b|\benrol(?:l|ment)?\b/i;

/** Greetings and politeness around a request, which change nothing. */
const LEAD_IN = /^(?:(?:hi|hello|hey)\b[,!.]?\s*)?(?:(?:please|pls)\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?/i;
const TRAILER = /(?:[\s,]*\bplease)?[\s?!.]*$/i;

function cleaned(text: string): string {
  return text.normalize("NFC").replace(/\s+/g, " ").trim().replace(LEAD_IN, "").replace(TRAILER, "").trim();
}

function nameFrom(captured: string): string | undefined {
  const name = captured
    .trim()
    .replace(/^["“”'‘’](.*)["“”'‘’]$/u, "$1")
    .replace(/['’]s (?:profile|page)$/i, "")
    .trim();
  if (name.length === 0 || name.length > 120 || !NAME_SHAPE.test(name)) return undefined;
  if (name.split(" ").some((word) => NOT_A_NAME.has(word.toLowerCase()))) return undefined;
  return name;
}

function certificateInput(text: string): Record<string, string> | undefined {
  const ids = new Set((text.match(CERTIFICATE_ID) ?? []).map((id) => id.toUpperCase()));
  if (ids.size === 1) return { certificate_id: [...ids][0]! };
  if (ids.size > 1) return undefined;
  const named = VERIFY_NAMED_ID.exec(text);
  return named ? { certificate_id: named[1]! } : undefined;
}

function lookupInput(text: string): Record<string, string> | undefined {
  for (const pattern of LOOKUP_PATTERNS) {
    const match = pattern.exec(text);
    const name = match ? nameFrom(match[1]!) : undefined;
    if (name) return { name_or_slug: name };
  }
  return undefined;
}

/** Reads a sentence: the one skill it asks for with its input, or why it gets the help answer. */
export function readPhrase(text: string): PhraseReading {
  if (text.length > MAX_PHRASE_LENGTH) return { kind: "help", reason: "unmatched" };
  const sentence = cleaned(text);
  if (REGISTER_INTENT.test(sentence)) return { kind: "help", reason: "register" };
  const matches: Array<{ skill: PhraseSkill; input: Record<string, string> }> = [];
  const certificate = certificateInput(sentence);
  if (certificate) matches.push({ skill: "verify_certificate", input: certificate });
  if (STATS_PATTERNS.some((pattern) => pattern.test(sentence))) matches.push({ skill: "get_community_stats", input: {} });
  const lookup = lookupInput(sentence);
  if (lookup) matches.push({ skill: "lookup_member", input: lookup });
  if (matches.length === 1) return { kind: "run", ...matches[0]! };
  if (matches.length > 1) return { kind: "help", reason: "ambiguous", skills: matches.map((m) => m.skill) };
  return { kind: "help", reason: "unmatched" };
}

const LEADS = {
  unmatched: "This agent found no request for one of its skills in that text.",
  register:
    'register_agent never runs from a sentence: it needs a data part whose input holds "user_authorized": true, sent only after your user explicitly authorized the registration in this turn.',
} as const;

/** The help answer: why, then every skill with one example (a sentence where one works, and its data part). */
export function helpText(reading: PhraseReading & { kind: "help" }): string {
  const lead = reading.reason === "ambiguous" ? `That text could ask for more than one skill (${reading.skills.join(", ")}): ask for one at a time.` : LEADS[reading.reason];
  const lines = COMMUNITY_TOOLS.map((tool) => {
    const help = HELP_LINES[tool.name];
    const data = JSON.stringify({ skill: tool.name, input: tool.examples[0]?.input ?? {} });
    if (help?.sentence) return `- ${tool.name} (${help.summary}): say "${help.sentence}", or send the data part ${data}.`;
    return `- ${tool.name} (${help?.summary ?? tool.title}): never from a sentence; send the data part ${data} only after your user explicitly authorized it in this turn.`;
  });
  return [
    lead,
    'This agent has no language model: it runs one skill per message, named in a data part {"skill": "<skill>", "input": {…}} or asked in a short sentence. Its skills, with an example each:',
    ...lines,
  ].join("\n");
}
