// Reads which skill a message asks for: a data part {"skill", "input"}, one of the short text forms of
// CONTRACT.md §9 ("lookup_member <name>", "get_community_stats", "verify_certificate <id>"), or a plain sentence
// (./phrases.ts: one skill matched runs it; anything else is answered with the help text). The same rule for
// both protocol generations: each shape of message is first reduced to its text and data parts.
import type { Message } from "@a2a-js/sdk";
import { COMMUNITY_TOOLS, findTool, type ToolDefinition } from "@/lib/tools";
import { clip } from "@/lib/schemas/text";
import { TEXT_FORMS } from "./card";
import { helpText, readPhrase } from "./phrases";

/**
 * What a message asks for: a tool run, a refusal (a failed task saying why), or the help answer (`help: true`, a
 * completed task whose status message lists the skills; executor.ts says why completed).
 */
export type Invocation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; skill: string; message: string; help?: true };

/** One part of a message, whatever its protocol generation: its text, its data, or neither (a file). */
export type InvocationPart = { text: string } | { data: unknown } | { other: true };

const SKILL_LIST = COMMUNITY_TOOLS.map((tool) => tool.name).join(", ");
const USAGE = `Send a data part {"skill": "<one of ${SKILL_LIST}>", "input": {…}}, or a text part "lookup_member <name>", "get_community_stats" or "verify_certificate <id>".`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bySkill(skill: string, input: unknown): Invocation {
  const tool = findTool(skill);
  if (!tool) return { ok: false, skill: "unknown", message: `Unknown skill "${clip(skill, 64)}". Skills: ${SKILL_LIST}.` };
  return { ok: true, tool, input };
}

/** A text that is not a literal form: the skill its words ask for, or the help answer. */
function fromSentence(text: string): Invocation {
  const reading = readPhrase(text);
  if (reading.kind === "help") return { ok: false, skill: "help", message: helpText(reading), help: true };
  return bySkill(reading.skill, reading.input);
}

function fromText(text: string): Invocation {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const command = space === -1 ? trimmed : trimmed.slice(0, space);
  const argument = space === -1 ? "" : trimmed.slice(space).trim();
  if (command === "register_agent") {
    return {
      ok: false,
      skill: "register_agent",
      message:
        'register_agent needs a data part {"skill": "register_agent", "input": {"agent_name": "…", "user_authorized": true}}, sent only after the user explicitly authorized it in this turn.',
    };
  }
  if (!Object.hasOwn(TEXT_FORMS, command)) return fromSentence(trimmed);
  const field = TEXT_FORMS[command];
  if (!field) {
    if (argument) return { ok: false, skill: command, message: `${command} takes no argument.` };
    return bySkill(command, {});
  }
  if (!argument) return { ok: false, skill: command, message: `Write "${command} <${field}>".` };
  return bySkill(command, { [field]: argument });
}

/** The invocation of a message's parts: the first data part decides, else the first text part. */
export function readInvocationParts(parts: readonly InvocationPart[]): Invocation {
  for (const part of parts) {
    if (!("data" in part)) continue;
    const data = part.data;
    if (isRecord(data) && typeof data["skill"] === "string") return bySkill(data["skill"], data["input"] ?? {});
    return { ok: false, skill: "unknown", message: `The data part lacks a "skill" string. ${USAGE}` };
  }
  for (const part of parts) {
    if ("text" in part) return fromText(part.text);
  }
  return { ok: false, skill: "unknown", message: `No data or text part found. ${USAGE}` };
}

/** The invocation of an A2A 0.3 message as sent on the wire. */
export function readInvocation(message: unknown): Invocation {
  return readInvocationParts(legacyWireParts(message));
}

/** Parts of an A2A 0.3 message as sent on the wire: `{kind: "text", text}`, `{kind: "data", data}`, `{kind: "file", …}`. */
export function legacyWireParts(message: unknown): InvocationPart[] {
  const parts = isRecord(message) && Array.isArray(message["parts"]) ? message["parts"] : [];
  return parts.map((part: unknown): InvocationPart => {
    if (isRecord(part) && part["kind"] === "text" && typeof part["text"] === "string") return { text: part["text"] };
    if (isRecord(part) && part["kind"] === "data") return { data: part["data"] };
    return { other: true };
  });
}

/** Parts of an A2A 1.0 message as sent on the wire (proto JSON): `{text}`, `{data}`, `{raw}` or `{url}`. */
export function v1WireParts(message: unknown): InvocationPart[] {
  const parts = isRecord(message) && Array.isArray(message["parts"]) ? message["parts"] : [];
  return parts.map((part: unknown): InvocationPart => {
    if (isRecord(part) && typeof part["text"] === "string") return { text: part["text"] };
    if (isRecord(part) && Object.hasOwn(part, "data")) return { data: part["data"] };
    return { other: true };
  });
}

/** Parts of a message inside the SDK (its protobuf objects; both generations arrive here in this shape). */
export function sdkMessageParts(message: Message): InvocationPart[] {
  return message.parts.map((part): InvocationPart => {
    const content = part.content;
    if (content?.$case === "text") return { text: content.value };
    if (content?.$case === "data") return { data: content.value as unknown };
    return { other: true };
  });
}
