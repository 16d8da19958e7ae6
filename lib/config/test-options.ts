// The tests' own options (issue 51): what a test needs of a server that no operator sets, given as command-line flags
// of npm start's server (`node dist/server.mjs --test-…`, `npm start -- --test-…`), never as environment variables, so
// they are in no configuration reference and a deployment's environment cannot carry them. Every copy of lib/config
// in the process (server.ts's bundle, Next's) reads the same process arguments. A start refuses an unknown `--test-`
// flag, a malformed value, and any of them in production (DEVELOPING.md "Tests").
import type { ConfigProblem } from "./schema";

/** The flags' prefix: every argument that starts with it is one of ours; others (Next's own CLI's) are not read. */
export const TEST_FLAG_PREFIX = "--test-";

export interface TestOptions {
  /** --test-webhook-retry-scale=<n>: multiplies every webhook retry interval and the three days before giving up. */
  webhookRetryScale: number;
  /** --test-webhook-poll-ms=<ms>: milliseconds between the delivery loop's passes (at least 50). */
  webhookPollMs: number;
  /** --test-webhook-after-response: a delivery pass after each response that caused an event, as on Vercel. */
  webhookAfterResponse: boolean;
}

export const DEFAULT_TEST_OPTIONS: TestOptions = { webhookRetryScale: 1, webhookPollMs: 1000, webhookAfterResponse: false };

/** A positive number, at least `min` when given. */
function positive(value: string | undefined, min: number): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 && number >= min ? number : undefined;
}

/** The options given among `args` (the process's arguments after the script), and one problem per bad flag. */
export function testOptionsFrom(args: readonly string[]): { options: TestOptions; given: string[]; problems: ConfigProblem[] } {
  const options = { ...DEFAULT_TEST_OPTIONS };
  const given: string[] = [];
  const problems: ConfigProblem[] = [];
  for (const arg of args) {
    if (!arg.startsWith(TEST_FLAG_PREFIX)) continue;
    const equals = arg.indexOf("=");
    const flag = equals < 0 ? arg : arg.slice(0, equals);
    const value = equals < 0 ? undefined : arg.slice(equals + 1);
    given.push(flag);
    switch (flag) {
      case "--test-webhook-retry-scale": {
        const scale = positive(value, 0);
        if (scale === undefined) problems.push({ variable: flag, detail: "must be =<a positive number> (1: the documented retry schedule)" });
        else options.webhookRetryScale = scale;
        break;
      }
      case "--test-webhook-poll-ms": {
        const pollMs = positive(value, 50);
        if (pollMs === undefined) problems.push({ variable: flag, detail: "must be =<milliseconds from 50>" });
        else options.webhookPollMs = pollMs;
        break;
      }
      case "--test-webhook-after-response":
        if (value !== undefined) problems.push({ variable: flag, detail: "takes no value" });
        else options.webhookAfterResponse = true;
        break;
      default:
        problems.push({ variable: flag, detail: "is not a test option (--test-webhook-retry-scale, --test-webhook-poll-ms, --test-webhook-after-response)" });
    }
  }
  return { options, given, problems };
}
