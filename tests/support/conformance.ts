// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.2, server mode, under the Node
// running the tests: it needs Node 22+) against one endpoint for one revision's frozen requirement set
// (`--requirements 2025-11-25` or `2026-07-28`), and sorts its scenarios into applicable, not applicable (with
// the reason) and unknown (new in the suite, not yet classified). The suite's exit code counts every
// scenario; the checks decide instead.
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

/** The revisions whose requirement sets the suite ships (node_modules/@modelcontextprotocol/conformance/requirements). */
export type Requirements = "2025-11-25" | "2026-07-28";

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
  /**
   * "scenario/check id" → why that one check of an applicable scenario does not concern this server (e.g. the
   * caching scenario asks prompts/list of a server without prompts). Every other check must pass.
   */
  notApplicableChecks?: Readonly<Record<string, string>>;
}

// Scenarios that need what neither of our servers has, whatever the revision.
const FIXTURE_TOOLS: Record<string, string> = {
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
  "json-schema-2020-12": "calls a fixture tool",
  "server-sse-multiple-streams": "needs SSE streams; these servers answer JSON only (stateless)",
  "server-sse-polling": "needs SSE streams; these servers answer JSON only (stateless)",
  "server-session-lifecycle": "needs sessions; these servers are stateless (no Mcp-Session-Id)",
  "logging-set-level": "no logging capability",
  "prompts-list": "no prompts capability",
  "prompts-get-simple": "no prompts capability",
  "prompts-get-with-args": "no prompts capability",
  "prompts-get-embedded-resource": "no prompts capability",
  "prompts-get-with-image": "no prompts capability",
};

// The 2026-07-28 multi-round-trip (input_required) and tasks scenarios call the suite's fixture tools.
const MODERN_FIXTURES: Record<string, string> = {
  "input-required-result-basic-elicitation": "calls a fixture tool that asks for elicitation (input_required)",
  "input-required-result-basic-sampling": "calls a fixture tool that asks for sampling (input_required)",
  "input-required-result-basic-list-roots": "calls a fixture tool that asks for roots (input_required)",
  "input-required-result-request-state": "calls a fixture tool that round-trips requestState",
  "input-required-result-multiple-input-requests": "calls a fixture tool with several input requests",
  "input-required-result-multi-round": "calls a fixture tool with several rounds",
  "input-required-result-missing-input-response": "calls a fixture tool that asks for input",
  "input-required-result-non-tool-request": "reads a fixture prompt/resource that asks for input",
  "input-required-result-result-type": "calls a fixture tool that asks for input",
  "input-required-result-unsupported-methods": "calls a fixture tool that asks for input",
  "input-required-result-tampered-state": "calls a fixture tool that round-trips requestState",
  "input-required-result-capability-check": "calls a fixture tool that asks for input",
  "input-required-result-ignore-extra-params": "calls a fixture tool that asks for input",
  "input-required-result-validate-input": "calls a fixture tool that asks for input",
  "tasks-lifecycle": "tasks extension (SEP-2663): no tool runs as a task",
  "tasks-capability-negotiation": "tasks extension (SEP-2663): not offered",
  "tasks-wire-fields": "tasks extension (SEP-2663): not offered",
  "tasks-request-state-removal": "tasks extension (SEP-2663): not offered",
  "tasks-mrtr-input": "tasks extension (SEP-2663): not offered",
  "tasks-request-headers": "tasks extension (SEP-2663): not offered",
  "tasks-dispatch-and-envelope": "tasks extension (SEP-2663): not offered",
  "tasks-status-notifications": "tasks extension (SEP-2663): not offered",
  "tasks-required-task-error": "tasks extension (SEP-2663): not offered",
  "tasks-mrtr-composition": "tasks extension (SEP-2663): not offered",
  "http-custom-header-server-validation": "calls the fixture tool that declares x-mcp-header parameters; no tool of ours declares one",
};

const FIXTURE_RESOURCES: Record<string, string> = {
  "resources-read-text": "reads the fixture resource test://static-text",
  "resources-read-binary": "reads the fixture resource test://static-binary",
  "resources-templates-read": "reads the fixture template test://template/{id}/data",
  "resources-subscribe": "subscribes to test://watched-resource; a stateless server sends no notifications (no subscribe capability)",
  "resources-unsubscribe": "unsubscribes from test://watched-resource; no subscribe capability",
  "completion-complete": "completes an argument of the fixture prompt test_prompt_with_arguments; an unknown prompt is -32602, as the spec says",
};

const NO_RESOURCES: Record<string, string> = {
  "resources-list": "no resources capability",
  ...Object.fromEntries(Object.keys(FIXTURE_RESOURCES).map((scenario) => [scenario, "no resources capability"])),
  "completion-complete": "no completions capability",
  "sep-2164-resource-not-found": "no resources capability",
};

/** /mcp (the four community tools) under the 2025-11-25 requirements. */
export const COMMUNITY_2025: ScenarioClasses = {
  applicable: ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"],
  notApplicable: { ...FIXTURE_TOOLS, ...NO_RESOURCES },
};

/** /mcp/docs (two tools, every document as a resource, slug completions) under the 2025-11-25 requirements. */
export const DOCS_2025: ScenarioClasses = {
  applicable: ["server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"],
  notApplicable: { ...FIXTURE_TOOLS, ...FIXTURE_RESOURCES },
};

/** server-stateless checks that call the suite's diagnostic fixture tools (they report FAILURE "Not testable" elsewhere). */
const STATELESS_FIXTURE_CHECKS: Record<string, string> = {
  "server-stateless/sep-2575-server-rejects-undeclared-capability": "calls the fixture tool test_missing_capability",
  "server-stateless/sep-2575-missing-capability-http-400": "calls the fixture tool test_missing_capability",
  "server-stateless/sep-2575-http-server-no-independent-requests-on-stream": "calls the fixture tool test_streaming_elicitation",
  "server-stateless/sep-2575-server-no-log-without-loglevel": "calls the fixture tool test_logging_tool",
};

/** /mcp under the 2026-07-28 requirements (stateless, server/discover, SEP-2243 headers, cache fields). */
export const COMMUNITY_2026: ScenarioClasses = {
  applicable: ["server-stateless", "tools-list", "dns-rebinding-protection", "caching", "http-header-validation"],
  notApplicable: { ...FIXTURE_TOOLS, ...NO_RESOURCES, ...MODERN_FIXTURES },
  notApplicableChecks: {
    ...STATELESS_FIXTURE_CHECKS,
    "caching/sep-2549-prompts-list-caching-hints": "asks prompts/list: no prompts capability (-32601)",
    "caching/sep-2549-resources-list-caching-hints": "asks resources/list: no resources capability (-32601)",
    "caching/sep-2549-resources-templates-list-caching-hints": "asks resources/templates/list: no resources capability (-32601)",
  },
};

/** /mcp/docs under the 2026-07-28 requirements. */
export const DOCS_2026: ScenarioClasses = {
  applicable: ["server-stateless", "tools-list", "resources-list", "sep-2164-resource-not-found", "dns-rebinding-protection", "caching", "http-header-validation"],
  notApplicable: { ...FIXTURE_TOOLS, ...FIXTURE_RESOURCES, ...MODERN_FIXTURES },
  notApplicableChecks: {
    ...STATELESS_FIXTURE_CHECKS,
    "caching/sep-2549-prompts-list-caching-hints": "asks prompts/list: no prompts capability (-32601)",
  },
};

/** Runs the suite's requirement set of `requirements` against `url`, prints a summary and answers one row per scenario the suite ran. */
export async function runConformance(url: string, requirements: Requirements, classes: ScenarioClasses): Promise<ConformanceRow[]> {
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-conformance-"));
  try {
    const cli = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [cli, "server", "--url", url, "--requirements", requirements, "--timeout", "20000", "-o", outputDir],
        { cwd: ROOT, timeout: 220_000, maxBuffer: 16 * 1024 * 1024 },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    const excused = classes.notApplicableChecks ?? {};
    const rows: ConformanceRow[] = [];
    for (const dir of fs.readdirSync(outputDir).sort()) {
      const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
      const file = path.join(outputDir, dir, "checks.json");
      const checks = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Check[]) : [];
      const kind = classes.applicable.includes(scenario) ? "applicable" : scenario in classes.notApplicable ? "not_applicable" : "unknown";
      const failed = checks.filter((c) => c.status === "FAILURE" && !(`${scenario}/${c.id}` in excused));
      rows.push({
        scenario,
        kind,
        checks: checks.length,
        passed: checks.filter((c) => c.status === "SUCCESS").length,
        failures: failed.map((c) => `${c.id}: ${c.errorMessage ?? ""}`),
      });
    }
    console.log(summarize(`${url} (requirements ${requirements})`, rows, classes, output));
    return rows;
  } finally {
    fs.rmSync(outputDir, { recursive: true, force: true });
  }
}

function summarize(target: string, rows: ConformanceRow[], classes: ScenarioClasses, output: string): string {
  const line = (r: ConformanceRow) =>
    `  ${r.checks > 0 && r.failures.length === 0 ? "PASS" : "FAIL"} ${r.scenario}: ${r.passed} passed, ${r.failures.length} failed${r.failures.length ? ` (${r.failures.join("; ")})` : ""}`;
  const applicable = rows.filter((r) => r.kind === "applicable");
  const unknown = rows.filter((r) => r.kind === "unknown");
  const notApplicable = rows.filter((r) => r.kind === "not_applicable");
  const lines = [`MCP conformance (server mode) against ${target}`, ...applicable.map(line)];
  const excused = Object.entries(classes.notApplicableChecks ?? {});
  if (excused.length) lines.push("  checks not applicable:", ...excused.map(([check, reason]) => `    ${check}: ${reason}`));
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
