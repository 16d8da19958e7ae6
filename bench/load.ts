// The load generator: one scenario per process, spawned by bench/run.ts so autocannon never shares an
// event loop (or a core) with the server it measures. Reads a job (JSON file named by argv[2]), rotates
// through the job's request variants with one counter shared by all connections, checks every answer
// against the expected status (and body fragment), and prints one JSON result line on stdout.
import fs from "node:fs";
import autocannon from "autocannon";

export interface RequestVariant {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadJob {
  origin: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Seconds after which an unanswered request counts as an error. */
  timeoutSeconds: number;
  variants: RequestVariant[];
  /** Give every request its own X-Forwarded-For (10.x.y.z from the counter): per-IP limits must not be what we measure. */
  distinctForwardedFor?: boolean;
  /** What counts as a right answer; anything else is an error. */
  expect: { status: number; bodyIncludes?: string; bodyExcludes?: string[] };
}

export interface LoadResult {
  requests: number;
  /** Requests answered during the warm-up (not in the figures, but they used server CPU too). */
  warmupRequests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Up to five unexpected answers ("status body…") for the report. */
  errorSamples: string[];
}

async function drive(job: LoadJob, seconds: number, counter: { n: number }, tally: { errors: number; samples: string[] } | null): Promise<autocannon.Result> {
  const variants = job.variants;
  const instance = autocannon({
    url: job.origin,
    connections: job.connections,
    duration: seconds,
    timeout: job.timeoutSeconds,
    requests: [
      {
        setupRequest: (request) => {
          const n = counter.n++;
          const variant = variants[n % variants.length]!;
          const headers: Record<string, string> = { ...variant.headers };
          if (job.distinctForwardedFor) headers["x-forwarded-for"] = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
          return { ...request, method: variant.method, path: variant.path, headers, body: variant.body };
        },
        onResponse: (status, body) => {
          if (!tally) return;
          const { expect } = job;
          const ok =
            status === expect.status &&
            (expect.bodyIncludes === undefined || body.includes(expect.bodyIncludes)) &&
            !(expect.bodyExcludes ?? []).some((fragment) => body.includes(fragment));
          if (ok) return;
          tally.errors++;
          if (tally.samples.length < 5) tally.samples.push(`${status} ${body.slice(0, 160)}`);
        },
      },
    ],
  });
  return await instance;
}

async function main(): Promise<void> {
  const job = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as LoadJob;
  const counter = { n: 0 };
  // Phase lines for bench/run.ts (work beside the load starts with it; only the last line is the result).
  process.stdout.write(`${JSON.stringify({ phase: "warm-up" })}\n`);
  const warmup = job.warmupSeconds > 0 ? await drive(job, job.warmupSeconds, counter, null) : null;
  const tally = { errors: 0, samples: [] as string[] };
  process.stdout.write(`${JSON.stringify({ phase: "measure" })}\n`);
  const result = await drive(job, job.durationSeconds, counter, tally);
  // Connection errors and timeouts never reach onResponse: they are errors too (autocannon's errors include its timeouts).
  const errors = tally.errors + result.errors;
  const out: LoadResult = {
    requests: result.requests.total,
    warmupRequests: warmup?.requests.total ?? 0,
    requestsPerSecond: result.requests.total / job.durationSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    errorSamples: tally.samples.concat(result.errors > 0 ? [`${result.errors} connection errors, of which ${result.timeouts} timeouts`] : []),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error: unknown) => {
  console.error(`bench load failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
