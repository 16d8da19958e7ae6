// npm run -s config [-- --env-file FILE]: the configuration `npm start` would run with (this shell's environment, and
// a systemd EnvironmentFile's variables on top, as deploy/agent-gate.service reads them; NODE_ENV=production), each
// value with its source, secrets only "set" or "unset"; then every problem the start would refuse, in the start's own
// lines, and exit code 1 when there is one. Changes nothing (the embedded database is not migrated).
import fs from "node:fs";
import { parseArgs } from "node:util";
import { startProblemLine } from "@/lib/startup/preflight";
import { configurationReport, REPORT_GROUPS, type ReportRow } from "@/lib/startup/report";
import { parseEnvironmentFile, ROOT } from "./lib";

function table(rows: ReportRow[]): string[] {
  const nameWidth = Math.max(...rows.map((row) => row.name.length));
  const valueWidth = Math.min(48, Math.max(...rows.map((row) => row.value.length)));
  return rows.map((row) => `  ${row.name.padEnd(nameWidth)}  ${row.value.padEnd(valueWidth)}  ${row.source}`.trimEnd());
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { "env-file": { type: "string" } }, strict: true });
  const file = values["env-file"];
  const env = file === undefined ? process.env : { ...process.env, ...parseEnvironmentFile(fs.readFileSync(file, "utf8")) };
  const report = await configurationReport(env, ROOT);
  const lines = ["Agent Gate configuration, as npm start would read this environment (NODE_ENV=production):"];
  for (const [group, title] of Object.entries(REPORT_GROUPS)) {
    const rows = report.rows.filter((row) => row.group === group);
    if (rows.length > 0) lines.push("", `${title}:`, ...table(rows));
  }
  for (const line of report.news) lines.push("", line);
  console.log(lines.join("\n"));
  if (report.problems.length === 0) {
    console.log("\nNo problem: the start would go ahead.");
    return 0;
  }
  for (const problem of report.problems) console.error(startProblemLine(problem));
  console.error(`[agent-gate] A start would be refused: ${report.problems.length} problem${report.problems.length === 1 ? "" : "s"} above.`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`config: failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
