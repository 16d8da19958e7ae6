// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against one
// endpoint and sorts its scenarios into applicable, not applicable (with the reason) and unknown (new in
// the suite, not yet classified). The suite's exit code counts every scenario; the checks decide instead.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./databases";

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ConformanceRow {
  scenario: string;
  kind: "applicable" | "not_applicable" | "unknown";
  checks: number;
  passed: number;
  failures: string[];
}

export interface ScenarioClasses {
  applicable: readonly string[];
  /** scenario → why it does not concern this server */
  notApplicable: Readonly<Record<string, string>>;
}

/**
 * Both our MCP servers (/mcp and /mcp/docs) are stateless, JSON-only and offer tools only. The suite's other
 * scenarios need capabilities they do not declare, SSE streams, or the fixture tools of the suite's
 * reference server (test_simple_text, test_image_content…), which exist only there.
 */
export const TOOLS_ONLY_SERVER: ScenarioClasses = {
  applicable: ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"],
  notApplicable: {
    "logging-set-level": "no logging capability",
    "completion-complete": "no completions capability",
    "tools-call-simple-text": "calls the fixture tool test_simple_text",
    "tools-call-image": "calls the fixture tool test_image_content",
    "tools-call-audio": "calls the fixture tool test_audio_content",
    "tools-call-embedded-resource": "calls the fixture tool test_embedded_resource",
    "tools-call-mixed-content": "calls the fixture tool test_multiple_content_types",
    "tools-call-with-logging": "calls the fixture tool test_tool_with_logging",
    "tools-call-error": "calls the fixture tool test_error_handling",
    "tools-call-with-progress": "calls the fixture tool test_tool_with_progress",
    "tools-call-sampling": "needs sampling (a model on the client side)",
    "tools-call-elicitation": "needs elicitation",
    "elicitation-sep1034-defaults": "needs elicitation",
    "elicitation-sep1330-enums": "needs elicitation",
    "server-sse-multiple-streams": "needs SSE streams; these servers answer JSON only (stateless)",
    "server-sse-polling": "needs SSE streams; these servers answer JSON only (stateless)",
    "json-schema-2020-12": "calls a fixture tool",
    "resources-list": "no resources capability",
    "resources-read-text": "no resources capability",
    "resources-read-binary": "no resources capability",
    "resources-templates-read": "no resources capability",
    "resources-subscribe": "no resources capability",
    "resources-unsubscribe": "no resources capability",
    "prompts-list": "no prompts capability",
    "prompts-get-simple": "no prompts capability",
    "prompts-get-with-args": "no prompts capability",
    "prompts-get-embedded-resource": "no prompts capability",
    "prompts-get-with-image": "no prompts capability",
  },
};

/** Runs the suite against `url`, prints a summary and answers one row per scenario the suite ran. */
export async function runConformance(url: string, classes: ScenarioClasses): Promise<ConformanceRow[]> {
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-conformance-"));
  try {
    const cli = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
    const shim = path.join(ROOT, "tests/support/conformance-node20.mjs");
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        ["--import", shim, cli, "server", "--url", url, "-o", outputDir],
        { cwd: ROOT, timeout: 220_000, maxBuffer: 16 * 1024 * 1024 },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    const rows: ConformanceRow[] = [];
    for (const dir of fs.readdirSync(outputDir).sort()) {
      const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
      const file = path.join(outputDir, dir, "checks.json");
      const checks = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Check[]) : [];
      const kind = classes.applicable.includes(scenario) ? "applicable" : scenario in classes.notApplicable ? "not_applicable" : "unknown";
      rows.push({
        scenario,
        kind,
        checks: checks.length,
        passed: checks.filter((c) => c.status === "SUCCESS").length,
        failures: checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? ""}`),
      });
    }
    console.log(summarize(url, rows, classes, output));
    return rows;
  } finally {
    fs.rmSync(outputDir, { recursive: true, force: true });
  }
}

function summarize(url: string, rows: ConformanceRow[], classes: ScenarioClasses, output: string): string {
  const line = (r: ConformanceRow) =>
    `  ${r.checks > 0 && r.failures.length === 0 ? "PASS" : "FAIL"} ${r.scenario}: ${r.passed} passed, ${r.failures.length} failed${r.failures.length ? ` (${r.failures.join("; ")})` : ""}`;
  const applicable = rows.filter((r) => r.kind === "applicable");
  const unknown = rows.filter((r) => r.kind === "unknown");
  const notApplicable = rows.filter((r) => r.kind === "not_applicable");
  const lines = [`MCP conformance (server mode) against ${url}`, ...applicable.map(line)];
  if (unknown.length) lines.push("  not yet classified (fails the test):", ...unknown.map(line));
  lines.push(`  not applicable (${notApplicable.length}):`, ...notApplicable.map((r) => `    ${r.scenario}: ${classes.notApplicable[r.scenario]}`));
  lines.push(`  applicable: ${applicable.filter((r) => r.checks > 0 && r.failures.length === 0).length}/${classes.applicable.length} scenarios pass`);
  if (rows.length === 0) lines.push("  the suite produced no results:", output.slice(-2000));
  return lines.join("\n");
}

/** The conformance verdict as data for one `expect(...).toEqual([])`: every problem, by scenario. */
export function conformanceProblems(rows: readonly ConformanceRow[], classes: ScenarioClasses): string[] {
  const problems: string[] = [];
  for (const scenario of classes.applicable) {
    const row = rows.find((r) => r.scenario === scenario);
    if (!row || row.checks === 0) problems.push(`${scenario}: did not run`);
    else problems.push(...row.failures.map((f) => `${scenario}: ${f}`));
  }
  problems.push(...rows.filter((r) => r.kind === "unknown").map((r) => `${r.scenario}: not classified as applicable or not`));
  return problems;
}
