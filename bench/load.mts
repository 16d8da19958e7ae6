// The load generator: one scenario per process, spawned by bench/run.ts so autocannon never shares an
// event loop (or a core) with the server it measures. Reads a job (JSON file named by argv[2]), rotates
// through the job's request variants with one counter shared by all connections, checks every answer
// against the expected status (and body fragment), and prints one JSON result line on stdout. A 503 from the
// server's admission control (lib/admission: "too busy", Retry-After) is a shed: counted apart, and an error too
// unless the job expects sheds (the mixed and overload scenarios).
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import autocannon from "autocannon";
import { importJWK, SignJWT, type JWK } from "jose";

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
  /** Sheds (admission control's 503s) are part of the answer under this load: counted, not errors. */
  shedsExpected?: boolean;
  /** Issue 52: DPoP reads, their variants made here before the warm-up (a proof is used once, its iat must be recent). */
  dpop?: DpopReads;
}

/** GETs of `path` with DPoP-bound tokens, each with its own proof (`htu` at `publicBase`, the server's BASE_URL). */
export interface DpopReads {
  alg: "ES256" | "Ed25519";
  privateJwk: JWK;
  publicJwk: JWK;
  accessTokens: string[];
  publicBase: string;
  path: string;
  /** How many proofs to make: more than the run can send (a proof sent twice is a replay, refused and counted as an error). */
  count: number;
}

/** One variant per proof, signed with jose as an agent's client signs them. */
async function dpopVariants(reads: DpopReads): Promise<RequestVariant[]> {
  const key = await importJWK(reads.privateJwk, reads.alg);
  const header = { alg: reads.alg, typ: "dpop+jwt", jwk: reads.publicJwk };
  const htu = `${reads.publicBase}${reads.path}`;
  const ath = new Map(
    await Promise.all(reads.accessTokens.map(async (t) => [t, Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(t))).toString("base64url")] as const)),
  );
  const variants: RequestVariant[] = [];
  for (let i = 0; i < reads.count; i++) {
    const token = reads.accessTokens[i % reads.accessTokens.length]!;
    const proof = await new SignJWT({ htm: "GET", htu, ath: ath.get(token), jti: randomUUID(), iat: Math.floor(Date.now() / 1000) }).setProtectedHeader(header).sign(key);
    variants.push({ method: "GET", path: reads.path, headers: { authorization: `DPoP ${token}`, dpop: proof } });
  }
  return variants;
}

export interface LoadResult {
  requests: number;
  /** Requests answered during the warm-up (not in the figures, but they used server CPU too). */
  warmupRequests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests admission control refused (HTTP 503 "too busy"); also in `errors` unless the job expects sheds. */
  sheds: number;
  /** Up to five unexpected answers ("status body…") for the report. */
  errorSamples: string[];
}

/**
 * A refusal of lib/admission (lib/http/errors.ts overloadedReply): HTTP 503 as REST temporarily_unavailable or a short
 * page, both saying the service is busy, or as JSON-RPC -32011 with id null (the body was never read) and a retry
 * after 1 s. A 503 for another reason (an unreachable database: retry after 5 s, the request's id) is not one.
 */
function isShed(status: number, body: string): boolean {
  if (status !== 503) return false;
  if (body.includes("busy")) return true;
  return body.includes('"code":-32011') && body.includes('"id":null') && body.includes('"retry_after":1}');
}

async function drive(job: LoadJob, seconds: number, counter: { n: number }, tally: { errors: number; sheds: number; samples: string[] } | null): Promise<autocannon.Result> {
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
          // Each request from its own address, or (the default) from one of `connections` addresses in turn: N clients,
          // not one client with N connections, which admission's per-caller share would refuse past its share.
          const client = job.distinctForwardedFor ? n : n % job.connections;
          headers["x-forwarded-for"] = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
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
          if (isShed(status, body)) {
            tally.sheds++;
            if (job.shedsExpected) return;
          }
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
  if (job.dpop) job.variants = await dpopVariants(job.dpop);
  const counter = { n: 0 };
  // Phase lines for bench/run.ts (work beside the load starts with it; only the last line is the result).
  process.stdout.write(`${JSON.stringify({ phase: "warm-up" })}\n`);
  const warmup = job.warmupSeconds > 0 ? await drive(job, job.warmupSeconds, counter, null) : null;
  const tally = { errors: 0, sheds: 0, samples: [] as string[] };
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
    sheds: tally.sheds,
    errorSamples: tally.samples.concat(result.errors > 0 ? [`${result.errors} connection errors, of which ${result.timeouts} timeouts`] : []),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error: unknown) => {
  console.error(`bench load failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
