// The shell blocks of README.md and of the published docs, and what their text claims the answers are
// (DEVELOPING.md "Documented commands"). tests/http/documented-commands.test.ts runs them through bash.

/** Info strings of a fenced block that holds shell commands. */
const SHELL_INFO = /^(sh|bash|shell|console|zsh)$/;
/** The marker on the line before a fence that is not run by the test: `<!-- not-run: why -->`. */
const NOT_RUN = /^\s*<!--\s*not-run:\s*(.*?)\s*-->\s*$/;

export interface ShellBlock {
  /** Where the block is, e.g. "README.md:66". */
  where: string;
  info: string;
  text: string;
  /** The marker's reason when the block is marked not runnable. */
  notRun?: string;
  /** A fence that holds a curl command but is not labelled as shell (it must be `bash`/`sh` or marked). */
  unlabelled?: boolean;
}

/** Every fenced block that holds commands: shell-labelled fences, and any other fence with a line starting with `curl `. */
export function shellBlocks(markdown: string, source: string): ShellBlock[] {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const info = open[3]!;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    const text = lines.slice(i + 1, end).join("\n");
    const marker = i > 0 ? NOT_RUN.exec(lines[i - 1]!) : null;
    const isShell = SHELL_INFO.test(info);
    const hasCurl = /^\s*(\$\s+)?curl\s/m.test(text);
    if (isShell || hasCurl) {
      blocks.push({ where: `${source}:${i + 1}`, info, text, ...(marker ? { notRun: marker[1]! } : {}), ...(!isShell ? { unlabelled: true } : {}) });
    }
    i = end;
  }
  return blocks;
}

export interface Claim {
  /** The status the text names, e.g. 200. */
  status?: number;
  /** Top-level JSON members the text names, with their value when it gives a literal one. */
  fields: { name: string; value?: string | number | boolean }[];
  header?: { name: string; value: string };
  emptyBody?: boolean;
  /** The comment it comes from, for failure messages. */
  text: string;
}

export interface ParsedBlock {
  /** One entry per curl call, in the order of the text (claims undefined where the text makes none). */
  calls: (Claim | undefined)[];
}

/** Splits a line into its command and its trailing comment (a `#` outside quotes, after a space or at the start). */
function splitComment(line: string): { command: string; comment?: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return { command: line.slice(0, i), comment: line.slice(i + 1).trim() };
  }
  return { command: line };
}

/** Splits `a, b: 1, "c":"d", …` at its top-level commas. */
function topLevelItems(inner: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote = false;
  let current = "";
  for (const c of inner) {
    if (c === '"') quote = !quote;
    if (!quote && (c === "{" || c === "[")) depth++;
    if (!quote && (c === "}" || c === "]")) depth--;
    if (!quote && depth === 0 && c === ",") {
      items.push(current.trim());
      current = "";
    } else current += c;
  }
  if (current.trim() !== "") items.push(current.trim());
  return items;
}

function literal(raw: string): string | number | boolean | undefined {
  const value = raw.trim();
  if (/^"[^"]*"$/.test(value)) return value.slice(1, -1);
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return undefined;
}

/**
 * A claim from the text after `→` (up to the first `;` that does not start a `name=value` parameter): `→ 400 {"error":"authorization_pending",…}`,
 * `→ 200 {access_token, expires_in: 3600}`, `→ 401, WWW-Authenticate: Bearer …`, `→ HTTP 200 with an empty body`.
 */
export function parseClaim(comment: string): Claim | undefined {
  const arrow = comment.indexOf("→");
  if (arrow < 0) return undefined;
  // Up to the first `;` that ends the claim (not one inside a header value such as `; charset=utf-8`).
  const text = comment
    .slice(arrow + 1)
    .split(/;(?!\s*[\w-]+=)/)[0]!
    .trim();
  const status = /^(?:HTTP\s+)?(\d{3})\b/.exec(text);
  if (!status) return undefined;
  const rest = text.slice(status[0].length);
  const claim: Claim = { status: Number(status[1]), fields: [], text };
  const braces = /^\s*\{(.*)\}/.exec(rest);
  if (braces) {
    for (const item of topLevelItems(braces[1]!)) {
      const member = /^"?([A-Za-z_][\w.]*)"?\s*(?::\s*(.*))?$/.exec(item);
      if (!member) continue;
      const value = member[2] === undefined ? undefined : literal(member[2]);
      claim.fields.push({ name: member[1]!, ...(value === undefined ? {} : { value }) });
    }
  }
  const header = /^\s*,\s*([A-Za-z][A-Za-z0-9-]*):\s*(.+)$/.exec(rest);
  if (header) claim.header = { name: header[1]!, value: header[2]!.trim() };
  if (/\bempty body\b/.test(rest)) claim.emptyBody = true;
  return claim;
}

/**
 * The curl calls of a block in text order, each with the claim its text makes: a trailing comment with `→` is the
 * claim of the last call on its line; a comment line starting with `# →` is the claim of the call before it; any
 * other comment line with `→` is the claim of the next call. Heredoc bodies are data, not commands.
 */
export function parseBlock(text: string): ParsedBlock {
  const calls: (Claim | undefined)[] = [];
  let pending: Claim | undefined;
  const lines = text.split("\n");
  let heredocEnd: string | undefined;
  let logical = "";
  const logicalLines: string[] = [];
  for (const line of lines) {
    if (heredocEnd !== undefined) {
      if (line.trim() === heredocEnd) heredocEnd = undefined;
      continue;
    }
    const heredoc = /<<-?\s*['"]?([A-Za-z_]+)['"]?/.exec(splitComment(line).command);
    if (heredoc) heredocEnd = heredoc[1];
    if (/\\$/.test(line) && !line.trim().startsWith("#")) {
      logical += line.slice(0, -1) + " ";
      continue;
    }
    logicalLines.push(logical + line);
    logical = "";
  }
  if (logical !== "") logicalLines.push(logical);
  for (const line of logicalLines) {
    const { command, comment } = splitComment(line);
    const claim = comment === undefined ? undefined : parseClaim(comment);
    if (command.trim() === "") {
      if (!claim) continue;
      if (/^→/.test(comment!.trim()) && calls.length > 0) calls[calls.length - 1] = claim;
      else pending = claim;
      continue;
    }
    const count = (command.match(/(^|[\s;(|&$])curl\s/g) ?? []).length;
    for (let k = 0; k < count; k++) {
      calls.push(pending);
      pending = undefined;
    }
    if (claim && count > 0) calls[calls.length - 1] = claim;
  }
  return { calls };
}
