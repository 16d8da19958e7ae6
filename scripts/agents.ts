// npm run -s agents:reports [-- --days N] [--json]    reports of requests members did not start, by verified origin
//                                                     and by network hash, and the blocked origins (issue 53)
// npm run -s agents:block -- --origin https://agent.example [--unblock]
//                                                     blocks a verified agent origin (its new registrations get 403
//                                                     agent_blocked, its active delegations are cancelled), or lifts it
// Bad input: one line and exit code 2; an unreachable or unmigrated database: scripts/command.ts's line and code.
import { parseArgs } from "node:util";
import { blockOrigin, REPORT_RETENTION_DAYS, reportsOverview, unblockOrigin, type ReportsOverview } from "@/lib/consent";
import { runCommand } from "./command";

const REPORTS_USAGE = "Usage: npm run -s agents:reports [-- --days N (1-90, default 30)] [--json]";
const BLOCK_USAGE = "Usage: npm run -s agents:block -- --origin https://agent.example [--unblock]";

class InputError extends Error {}

function options<T extends Record<string, { type: "string" | "boolean" }>>(args: string[], spec: T, usage: string) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new InputError(`${(error as Error).message}. ${usage}`);
  }
}

/** An agent origin as lib/agent-identity stores it: scheme, host and port only. */
function parseOrigin(text: string | undefined): string {
  if (!text) throw new InputError(`--origin is required. ${BLOCK_USAGE}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(`--origin must be an origin such as https://agent.example, not ${JSON.stringify(text.slice(0, 80))}`);
  }
  const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password && !text.endsWith("?") && !text.endsWith("#");
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !bare)
    throw new InputError(`--origin must be an origin (scheme, host and port only) such as https://agent.example`);
  return url.origin;
}

const when = (date: Date): string => date.toISOString();
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

function printOverview(overview: ReportsOverview, days: number): void {
  const total = overview.byOrigin.reduce((sum, group) => sum + group.reports, 0);
  console.log(`Reports of requests members did not start, last ${plural(days, "day")} (since ${when(overview.since)}): ${total}.`);
  console.log("\nBy verified origin:");
  if (overview.byOrigin.length === 0) console.log("  none");
  for (const group of overview.byOrigin) {
    const block =
      group.block && group.block.status !== "reported"
        ? `  [${group.block.status} by ${group.block.source === "reports" ? "reports" : "the operator"} ${when(group.block.changedAt)}]`
        : "";
    console.log(`  ${group.key ?? "(unsigned)"}  ${plural(group.reports, "report")} from ${plural(group.members, "member")}, last ${when(group.lastAt)}${block}`);
  }
  console.log("\nBy network (keyed hash of the requesting address or IPv6 /64):");
  if (overview.byNetwork.length === 0) console.log("  none");
  for (const group of overview.byNetwork)
    console.log(`  ${group.key ?? "(unknown)"}  ${plural(group.reports, "report")} from ${plural(group.members, "member")}, last ${when(group.lastAt)}`);
  console.log("\nBlocked origins:");
  if (overview.blocks.length === 0) console.log("  none");
  for (const block of overview.blocks) console.log(`  ${block.origin}  ${block.status} by ${block.source === "reports" ? "reports" : "the operator"} ${when(block.changedAt)}`);
}

async function reports(args: string[]): Promise<void> {
  const values = options(args, { days: { type: "string" }, json: { type: "boolean" } }, REPORTS_USAGE);
  const days = values.days === undefined ? 30 : Number(values.days);
  if (!/^[0-9]{1,3}$/.test(values.days ?? "30") || days < 1 || days > REPORT_RETENTION_DAYS)
    throw new InputError(`--days must be a whole number from 1 to ${REPORT_RETENTION_DAYS}. ${REPORTS_USAGE}`);
  const overview = await reportsOverview(new Date(Date.now() - days * 24 * 3600 * 1000));
  if (values.json) console.log(JSON.stringify(overview, null, 2));
  else printOverview(overview, days);
}

async function block(args: string[]): Promise<void> {
  const values = options(args, { origin: { type: "string" }, unblock: { type: "boolean" } }, BLOCK_USAGE);
  const origin = parseOrigin(values.origin);
  if (values.unblock) {
    if (!(await unblockOrigin(origin))) throw new InputError(`${origin} is not blocked`);
    console.log(`Unblocked ${origin}: its new registrations are accepted again (delegations the block cancelled stay cancelled).`);
    return;
  }
  const outcome = await blockOrigin(origin, "operator");
  const what = `${plural(outcome.cancelledDelegations, "active delegation")} cancelled, ${plural(outcome.revokedTokens, "access token")} revoked`;
  console.log(outcome.newlyBlocked ? `Blocked ${origin}: ${what}; its new registrations get 403 agent_blocked.` : `${origin} was already blocked: ${what}.`);
}

const [command, ...args] = process.argv.slice(2);
const name = `agents:${command ?? ""}`;
void runCommand(name, async () => {
  try {
    if (command === "reports") await reports(args);
    else if (command === "block") await block(args);
    else throw new InputError(`unknown command ${command ?? "(none)"}; use agents:reports or agents:block`);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    console.error(`${name}: ${error.message}`);
    return 2;
  }
});
