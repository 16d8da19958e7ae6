// The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against /mcp/docs.
// Every scenario counts unless it is listed below as not applicable, with the reason.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, inject, it } from "vitest";

const base = inject("baseUrl");
const ROOT = path.resolve(__dirname, "../..");

/**
 * Scenarios that test features /mcp/docs deliberately does not offer. The docs server offers tools only
 * (search_docs, get_doc): no logging, completions, resources, prompts, sampling, elicitation or progress,
 * and the tools-call-* media scenarios call fixture tools of the suite's reference server (test_image_content…)
 * that exist only there.
 */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no logging capability is declared",
  "completion-complete": "no prompts or resource templates, so nothing to complete",
  "tools-call-image": "calls the reference server's fixture tool test_image_content",
  "tools-call-audio": "calls the reference server's fixture tool test_audio_content",
  "tools-call-embedded-resource": "calls the reference server's fixture tool test_embedded_resource",
  "tools-call-mixed-content": "calls the reference server's fixture tool test_multiple_content_types",
  "tools-call-with-logging": "calls a fixture tool that sends log notifications; no logging capability",
  "tools-call-with-progress": "calls a fixture tool that sends progress notifications; our tools answer at once",
  "tools-call-sampling": "calls a fixture tool that asks the client to sample; our tools never do",
  "tools-call-elicitation": "calls a fixture tool that elicits input; our tools never do",
  "elicitation-sep1034-defaults": "elicitation is not used",
  "elicitation-sep1330-enums": "elicitation is not used",
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
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

it("passes every applicable check of the MCP conformance suite", async () => {
  const outputDir = path.join(ROOT, ".tmp", `conformance-${process.pid}`);
  fs.rmSync(outputDir, { recursive: true, force: true });
  const cli = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  await new Promise<void>((resolve) => {
    // The suite's exit code reflects every scenario (including the not-applicable ones); the checks decide below.
    execFile(process.execPath, ["--import", path.join(ROOT, "tests/support/conformance-node20.mjs"), cli, "server", "--url", `${base}/mcp/docs`, "-o", outputDir], { cwd: ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, () => resolve());
  });

  const rows: { scenario: string; passed: number; failed: number; applicable: boolean; failures: string[] }[] = [];
  for (const dir of fs.readdirSync(outputDir).sort()) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const checks = JSON.parse(fs.readFileSync(path.join(outputDir, dir, "checks.json"), "utf8")) as Check[];
    const failures = checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? ""}`);
    rows.push({ scenario, passed: checks.filter((c) => c.status === "SUCCESS").length, failed: failures.length, applicable: !(scenario in NOT_APPLICABLE), failures });
  }

  const applicable = rows.filter((r) => r.applicable);
  const summary = [
    `MCP conformance (server mode) against ${base}/mcp/docs`,
    ...applicable.map((r) => `  ${r.failed === 0 ? "PASS" : "FAIL"} ${r.scenario}: ${r.passed} passed, ${r.failed} failed${r.failures.length ? ` (${r.failures.join("; ")})` : ""}`),
    `  not applicable (${rows.length - applicable.length}):`,
    ...rows.filter((r) => !r.applicable).map((r) => `    ${r.scenario}: ${NOT_APPLICABLE[r.scenario]}`),
    `  applicable: ${applicable.filter((r) => r.failed === 0).length}/${applicable.length} scenarios pass`,
  ].join("\n");
  console.log(summary);

  expect(rows.length).toBeGreaterThan(0);
  for (const required of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    expect(applicable.map((r) => r.scenario)).toContain(required);
  }
  expect(applicable.flatMap((r) => r.failures)).toEqual([]);
}, 300_000);
