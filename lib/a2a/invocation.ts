// Reads which skill a message/send asks for: a data part {"skill", "input"} or one of the short text
// forms of CONTRACT.md §9 ("lookup_member <name>", "get_community_stats", "verify_certificate <id>").
import type { Message } from "@a2a-js/sdk";
import { COMMUNITY_TOOLS, findTool, type ToolDefinition } from "@/lib/tools";
import { clip } from "@/lib/schemas/text";
import { TEXT_FORMS } from "./card";

export type Invocation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; skill: string; message: string };

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
  if (!Object.hasOwn(TEXT_FORMS, command)) return { ok: false, skill: "unknown", message: `Unrecognized request. ${USAGE}` };
  const field = TEXT_FORMS[command];
  if (!field) {
    if (argument) return { ok: false, skill: command, message: `${command} takes no argument.` };
    return bySkill(command, {});
  }
  if (!argument) return { ok: false, skill: command, message: `Write "${command} <${field}>".` };
  return bySkill(command, { [field]: argument });
}

export function readInvocation(message: Message): Invocation {
  for (const part of message.parts) {
    if (part.kind !== "data") continue;
    const data: unknown = part.data;
    if (isRecord(data) && typeof data["skill"] === "string") return bySkill(data["skill"], data["input"] ?? {});
    return { ok: false, skill: "unknown", message: `The data part lacks a "skill" string. ${USAGE}` };
  }
  for (const part of message.parts) {
    if (part.kind === "text") return fromText(part.text);
  }
  return { ok: false, skill: "unknown", message: `No data or text part found. ${USAGE}` };
}
