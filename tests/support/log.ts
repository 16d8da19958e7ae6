// The process's log captured in a test: every line the logger writes (lib/observability/log.ts), parsed, read by type.
import { createLogger, setLogger } from "@/lib/observability/log";

export type LogEntry = Record<string, unknown>;

export interface CapturedLog {
  /** Every line written since the capture began (or was last cleared), parsed. */
  entries(): LogEntry[];
  /** The lines of one type ("request", "error"). */
  linesOf(type: string): LogEntry[];
  clear(): void;
  /** Gives the process its own logger back. */
  restore(): void;
}

/** Replaces the process's logger with one that keeps its lines (level info). */
export function captureLog(): CapturedLog {
  const lines: string[] = [];
  setLogger(createLogger({ write: (line: string) => void lines.push(line) }, "info"));
  const entries = (): LogEntry[] => lines.map((line) => JSON.parse(line) as LogEntry);
  return {
    entries,
    linesOf: (type) => entries().filter((entry) => entry.type === type),
    clear: () => void lines.splice(0),
    restore: () => setLogger(undefined),
  };
}

/** The JSON log lines of a process's output (lines that are not JSON, such as a bare `next start`'s banner, left out). */
export function jsonLines(output: string): LogEntry[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogEntry);
}

/** The problems a refused start reported (its `start_problem` lines' messages: the variable and the fix), in order. */
export function startProblems(output: string): string[] {
  return jsonLines(output)
    .filter((line) => line.type === "start_problem")
    .map((line) => String(line.msg));
}
