// Lines the log's destination cannot hold are dropped whole, counted, and reported once the reader has caught up
// (lib/observability/log.ts reportDroppedLines), with pino's own asynchronous destination (sonic-boom) and a small bound.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, droppedLogLines, reportDroppedLines } from "@/lib/observability/log";
import { serviceMetrics } from "@/lib/observability/metrics";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "log-drops-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A logger on pino's asynchronous destination to a file, holding at most `maxLength` unwritten bytes. */
function boundedLog(name: string, maxLength: number) {
  const file = path.join(dir, name);
  const destination = pino.destination({ dest: file, sync: false, maxLength, mkdir: true });
  const log = createLogger(destination, "info");
  reportDroppedLines(destination, () => log);
  // Whole lines only: a write may be under way while the file is read.
  const lines = (): Record<string, unknown>[] => {
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    return text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return { log, lines };
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; waited < 200 && !condition(); waited++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** One burst in one event-loop turn: the first line's write is under way while the others wait in the destination. */
function burst(log: pino.Logger, from: number, count: number): void {
  for (let n = from; n < from + count; n++) log.info({ type: "request", n, route: "/healthz" }, "request");
}

describe("dropped log lines", () => {
  it("drops whole lines past the bound, then logs one warning with their number and counts them", async () => {
    const before = droppedLogLines();
    const { log, lines } = boundedLog("burst.log", 2048);
    burst(log, 0, 100);
    await until(() => lines().some((line) => line.type === "log_lines_dropped"));
    const written = lines();
    const report = written.find((line) => line.type === "log_lines_dropped")!;
    const requests = written.filter((line) => line.type === "request");
    expect(report.level).toBe("warn");
    expect(report.dropped).toBe(100 - requests.length);
    expect(report.dropped).toBeGreaterThan(0);
    expect(droppedLogLines() - before).toBe(report.dropped);
    // The lines kept are the first ones, in order; the warning follows them.
    expect(requests.map((line) => line.n)).toEqual(Array.from({ length: requests.length }, (_, n) => n));
    expect(written.at(-1)).toBe(report);
  });

  it("reports each gap once, with only its own lines", async () => {
    const { log, lines } = boundedLog("two-gaps.log", 2048);
    burst(log, 0, 100);
    await until(() => lines().filter((line) => line.type === "log_lines_dropped").length === 1);
    burst(log, 100, 100);
    await until(() => lines().filter((line) => line.type === "log_lines_dropped").length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const written = lines();
    const reports = written.filter((line) => line.type === "log_lines_dropped").map((line) => line.dropped as number);
    expect(reports).toHaveLength(2);
    expect(reports[0]! + reports[1]!).toBe(200 - written.filter((line) => line.type === "request").length);
  });

  it("writes no warning when nothing was dropped", async () => {
    const { log, lines } = boundedLog("quiet.log", 1024 * 1024);
    burst(log, 0, 100);
    await until(() => lines().length === 100);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines().some((line) => line.type === "log_lines_dropped")).toBe(false);
  });

  it("agent_gate_log_lines_dropped_total is the process's count, read by a Prometheus parser", async () => {
    const { log, lines } = boundedLog("metric.log", 2048);
    burst(log, 0, 100);
    await until(() => lines().some((line) => line.type === "log_lines_dropped"));
    const text = await serviceMetrics().registry.metrics();
    const family = parsePrometheusTextFormat(text).find((f) => f.name === "agent_gate_log_lines_dropped_total");
    expect(family?.type).toBe("COUNTER");
    expect(Number(family?.metrics[0]?.value)).toBe(droppedLogLines());
    // A second scrape without new drops does not count them again.
    const again = parsePrometheusTextFormat(await serviceMetrics().registry.metrics()).find((f) => f.name === "agent_gate_log_lines_dropped_total");
    expect(Number(again?.metrics[0]?.value)).toBe(droppedLogLines());
  });
});
