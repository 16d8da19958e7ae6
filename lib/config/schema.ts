import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { parseAllowance } from "./allowance";
import { described, type VariableMeta } from "./describe";
import { ALLOWANCE_PREFIX, SETTING_PREFIXES, unknownSettingProblems } from "./names";
import { operationsFrom, operationsProblems, operationsSchema, type OperationsConfig } from "./operations";
import { sharedStateFrom, sharedStateProblems, sharedStateSchema, type SharedStateConfig } from "./shared-state";
import { otlpMetricsFrom, tracingFrom, tracingProblems, tracingSchema, type OtlpMetricsConfig, type TracingConfig } from "./tracing";
import { testOptionsFrom } from "./test-options";

/** The embedded SQLite database (relative to the working directory); the one database that may migrate itself at start. */
export const DEFAULT_DATABASE_URL = "file:./data/app.db";

// ---- Admission control (lib/admission; docs/limits.md): per class of work, requests running at once and waiting ----

/** Each class's default bounds: in flight, waiting. Chosen so the bench's 64 connections per scenario are never refused. */
export const ADMISSION_DEFAULTS = {
  ACCOUNT: { inFlight: 64, queue: 1024 },
  TOKEN: { inFlight: 32, queue: 256 },
  PAGES: { inFlight: 8, queue: 64 },
  PUBLIC: { inFlight: 16, queue: 128 },
  GENERAL: { inFlight: 32, queue: 256 },
} as const;
export const ADMISSION_QUEUE_WAIT_MS_DEFAULT = 2000;
export const ADMISSION_HEAP_SHED_SHARE_DEFAULT = 0.8;
/** What one caller key may hold of each class's slots and queue, and of the bodies being read (issue 41). */
export const ADMISSION_CALLER_SHARE_DEFAULT = 0.25;
/** Bodies being read at once before admission (lib/server/body-gate.ts), and the bytes they may hold. */
export const ADMISSION_BODY_READERS_DEFAULT = 256;
export const ADMISSION_BODY_BUFFER_MIB_DEFAULT = 64;
/** Headers and body must arrive within this many seconds (Node's headersTimeout and requestTimeout, and the body gate). */
export const REQUEST_DEADLINE_SECONDS_DEFAULT = 10;
/** Past the first two seconds, a body must arrive at this average rate at least. */
export const REQUEST_MIN_BYTES_PER_SECOND_DEFAULT = 1024;

/**
 * A verified agent (Web Bot Auth, issue 44) is counted under its origin, which answers for it and can be refused by
 * name: twice an address's allowance by default, where an address may hide many clients that answer for nothing.
 */
export const VERIFIED_AGENT_ALLOWANCE_FACTOR_DEFAULT = 2;

/**
 * Issue 53: a verified agent origin reported by this many distinct members within 24 hours is blocked (0: never
 * automatically). Only origins: an address is shared by too many agents to block on reports.
 */
export const AGENT_REPORTS_BLOCK_THRESHOLD_DEFAULT = 3;

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

/** What each class of work holds (lib/admission WORK_CLASSES), for the variables' descriptions. */
const ADMISSION_CLASS_WORDS: Record<keyof typeof ADMISSION_DEFAULTS, string> = {
  ACCOUNT: "own-account reads (/api/v1/agent/*)",
  TOKEN: "/oauth2/token and /oauth2/revoke",
  PAGES: "sign-in, /account, /agent/authorize and their forms",
  PUBLIC: "anonymous costly work: /mcp, /mcp/docs, /a2a, /ask, batch, simulator, registration, map search",
  GENERAL: "every other page, markdown twin, document and discovery file",
};

const SHARE_RULE = "must be a decimal share of the heap limit from 0.5 to 0.95, e.g. 0.8";
const CALLER_SHARE_RULE = "must be a decimal share from 0.01 to 1, e.g. 0.25 (1: callers are not told apart)";

function admissionEnvShape() {
  const shape: Record<string, z.ZodType<number | undefined, string | undefined>> = {};
  for (const [name, bounds] of Object.entries(ADMISSION_DEFAULTS) as [keyof typeof ADMISSION_DEFAULTS, { inFlight: number; queue: number }][]) {
    const what = ADMISSION_CLASS_WORDS[name];
    shape[`ADMISSION_${name}_IN_FLIGHT`] = described(wholeNumber(1, 10_000).optional(), {
      group: "admission",
      default: bounds.inFlight,
      description: `Requests of the ${name.toLowerCase()} class (${what}) running at once; a whole number from 1.`,
    });
    shape[`ADMISSION_${name}_QUEUE`] = described(wholeNumber(0, 100_000).optional(), {
      group: "admission",
      default: bounds.queue,
      description: `Requests of the ${name.toLowerCase()} class waiting for a slot; past it a request is refused with 503 and \`Retry-After: 1\`. A whole number from 0.`,
    });
  }
  shape.ADMISSION_QUEUE_WAIT_MS = described(wholeNumber(1, 60_000).optional(), {
    group: "admission",
    default: ADMISSION_QUEUE_WAIT_MS_DEFAULT,
    description: "The longest a request waits in its class's queue, and again for an event-loop turn, before it is refused with 503 (milliseconds, 1 to 60000).",
  });
  shape.ADMISSION_HEAP_SHED_SHARE = described(
    z
      .string()
      .regex(/^0?\.[0-9]+$/, SHARE_RULE)
      .transform(Number)
      .refine((n) => n >= 0.5 && n <= 0.95, SHARE_RULE)
      .optional(),
    {
      group: "admission",
      default: ADMISSION_HEAP_SHED_SHARE_DEFAULT,
      description:
        "The share of V8's heap limit from which anonymous costly work is refused (503); past halfway between it and the limit, pages and general requests too; own-account reads and tokens never. From 0.5 to 0.95.",
    },
  );
  shape.ADMISSION_CALLER_SHARE = described(
    z
      .string()
      .regex(/^(0?\.[0-9]+|1(\.0+)?)$/, CALLER_SHARE_RULE)
      .transform(Number)
      .refine((n) => n >= 0.01 && n <= 1, CALLER_SHARE_RULE)
      .optional(),
    {
      group: "admission",
      default: ADMISSION_CALLER_SHARE_DEFAULT,
      description:
        "The most one caller key (an address, an IPv6 /64, a verified agent's origin) holds of each class's slots and queue, and of the bodies being read; one more is refused with 429. From 0.01 to 1 (1: callers are not told apart).",
    },
  );
  shape.ADMISSION_BODY_READERS = described(wholeNumber(1, 100_000).optional(), {
    group: "admission",
    default: ADMISSION_BODY_READERS_DEFAULT,
    description: "Request bodies read at once before admission (lib/server/body-gate.ts); one caller at most its share of them.",
  });
  shape.ADMISSION_BODY_BUFFER_MIB = described(wholeNumber(1, 65_536).optional(), {
    group: "admission",
    default: ADMISSION_BODY_BUFFER_MIB_DEFAULT,
    description: "MiB the bodies being read may hold together (a declared length, or the route's limit for a chunked body); one caller at most its share.",
  });
  shape.REQUEST_DEADLINE_SECONDS = described(wholeNumber(1, 300).optional(), {
    group: "admission",
    default: REQUEST_DEADLINE_SECONDS_DEFAULT,
    description:
      "Seconds within which a request's headers and body must have arrived (Node's headersTimeout and requestTimeout); a client that misses it gets 408 and its connection is closed.",
  });
  shape.REQUEST_MIN_BYTES_PER_SECOND = described(wholeNumber(0, 1_000_000_000).optional(), {
    group: "admission",
    default: REQUEST_MIN_BYTES_PER_SECOND_DEFAULT,
    description: "After a body's first 2 seconds, the least average rate at which it must arrive (bytes per second; 0 turns the rate off); slower gets 408.",
  });
  return shape;
}

export interface AdmissionConfig {
  /** Per class (lib/admission WORK_CLASSES, upper-cased in the variables): requests running at once and waiting. */
  lanes: Record<"account" | "token" | "pages" | "public" | "general", { inFlight: number; queue: number }>;
  queueWaitMs: number;
  heapShedShare: number;
  /** One caller key's share of each lane's slots and queue, and of the bodies being read (0.01..1). */
  callerShare: number;
  /** Bodies being read at once before admission, and the bytes they may hold. */
  bodyReaders: number;
  bodyBufferBytes: number;
  /** Headers and body must be whole within this many milliseconds of the request's start. */
  requestDeadlineMs: number;
  /** Past a short grace, the least average rate at which a body must arrive. */
  minBytesPerSecond: number;
}

function admissionConfig(raw: Record<string, unknown>): AdmissionConfig {
  const lane = (name: keyof typeof ADMISSION_DEFAULTS) => ({
    inFlight: (raw[`ADMISSION_${name}_IN_FLIGHT`] as number | undefined) ?? ADMISSION_DEFAULTS[name].inFlight,
    queue: (raw[`ADMISSION_${name}_QUEUE`] as number | undefined) ?? ADMISSION_DEFAULTS[name].queue,
  });
  return {
    lanes: { account: lane("ACCOUNT"), token: lane("TOKEN"), pages: lane("PAGES"), public: lane("PUBLIC"), general: lane("GENERAL") },
    queueWaitMs: (raw.ADMISSION_QUEUE_WAIT_MS as number | undefined) ?? ADMISSION_QUEUE_WAIT_MS_DEFAULT,
    heapShedShare: (raw.ADMISSION_HEAP_SHED_SHARE as number | undefined) ?? ADMISSION_HEAP_SHED_SHARE_DEFAULT,
    callerShare: (raw.ADMISSION_CALLER_SHARE as number | undefined) ?? ADMISSION_CALLER_SHARE_DEFAULT,
    bodyReaders: (raw.ADMISSION_BODY_READERS as number | undefined) ?? ADMISSION_BODY_READERS_DEFAULT,
    bodyBufferBytes: ((raw.ADMISSION_BODY_BUFFER_MIB as number | undefined) ?? ADMISSION_BODY_BUFFER_MIB_DEFAULT) * 1024 * 1024,
    requestDeadlineMs: ((raw.REQUEST_DEADLINE_SECONDS as number | undefined) ?? REQUEST_DEADLINE_SECONDS_DEFAULT) * 1000,
    minBytesPerSecond: (raw.REQUEST_MIN_BYTES_PER_SECOND as number | undefined) ?? REQUEST_MIN_BYTES_PER_SECOND_DEFAULT,
  };
}

/** A number read from the environment: finite, at least `min` (more than 0 when `min` is 0). */
function numberSetting(message: string, min = 0) {
  return z.string().transform((value, ctx) => {
    const number = Number(value);
    if (!Number.isFinite(number) || (min === 0 ? number <= 0 : number < min)) {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return number;
  });
}

/** A switch: `on` (its default) or `off`. */
const onOff = (meta: VariableMeta) => described(z.enum(["on", "off"], { message: "must be on or off" }).default("on"), meta);

/**
 * The in-process loops', webhooks' and docs' settings (issue 33): checked at start with the rest (one line per
 * bad value), and part of the one configuration (`webhooks`, `contentDir`).
 */
export const settingsEnvSchema = z.object({
  JANITOR: onOff({
    group: "background",
    description: "`off`: npm start runs no janitor loop (the cron route, /api/cron/janitor, still runs a pass when called); `on`.",
  }),
  WEBHOOK_DELIVERY: onOff({
    group: "webhooks",
    description: "`off`: npm start runs no webhook delivery loop (the cron route, /api/cron/webhooks, and `npm run webhook:deliver` still deliver); `on`.",
  }),
  WEBHOOK_ALLOW_PRIVATE: described(z.enum(["0", "1"], { message: "must be 1 (allow http and private addresses for webhooks) or 0" }).default("0"), {
    group: "webhooks",
    description:
      "`1`: webhook endpoints may be `http://` and reach private, loopback or reserved addresses (tests, local use; refused at a production start). Read at every delivery: with `0`, an endpoint added under `1` is sent nothing (`webhook:list` says why).",
  }),
  AGENT_DIRECTORY_ALLOW_PRIVATE: described(z.enum(["0", "1"], { message: "must be 1 (allow http and private addresses for agent key directories) or 0" }).default("0"), {
    group: "network",
    description:
      "`1`: agents' Web Bot Auth key directories may be `http://` and at private, loopback or reserved addresses (tests, local use; refused at a production start); `0`: https at public addresses only.",
  }),
  WEBHOOK_TIMEOUT_SECONDS: described(numberSetting("must be a positive number of seconds").default(10), {
    group: "webhooks",
    description: "Seconds one delivery attempt may take (a positive number).",
  }),
  CONTENT_DIR: described(z.string().optional(), {
    group: "deployment",
    default: "`content/docs`",
    description: "The directory of the published documentation (markdown with front matter), relative to the working directory.",
  }),
});

/** PORT: where npm start listens (server.ts: a TCP port, default 3000; 0: a free port the system picks); BASE_URL's local default follows it. */
const PORT_PATTERN = /^\d{1,5}$/;
export const PORT_DEFAULT = 3000;

/**
 * BASE_URL's default off Vercel: this machine at the port npm start listens on (issue 42), as npm run demo
 * derives it. PORT 0 (any free port) names no port an address could carry, so it keeps the default port.
 */
export function localBaseUrl(port: string | undefined): string {
  const number = port !== undefined && PORT_PATTERN.test(port) ? Number(port) : 0;
  return `http://localhost:${number > 0 && number <= 65535 ? number : PORT_DEFAULT}`;
}

/** Environment variables of CONTRACT.md §1, validated once at start. */
export const rawEnvSchema = z.object({
  BASE_URL: described(
    z
      .string()
      .transform((value, ctx) => {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          ctx.addIssue({ code: "custom", message: "must be an absolute http(s) URL such as https://gate.example.com" });
          return z.NEVER;
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          ctx.addIssue({ code: "custom", message: "must start with http:// or https://" });
          return z.NEVER;
        }
        if (url.search !== "" || url.hash !== "" || url.pathname !== "/" || url.username || url.password || !url.hostname) {
          ctx.addIssue({ code: "custom", message: "must be an origin without path, query, fragment or credentials" });
          return z.NEVER;
        }
        return url.origin;
      })
      .default(localBaseUrl(undefined)),
    {
      group: "deployment",
      default: "`http://localhost:$PORT` (`http://localhost:3000`); on Vercel `https://` + `VERCEL_PROJECT_PRODUCTION_URL`",
      deploy: "always: the public `https://` origin, e.g. `https://gate.example.com`",
      description:
        "The service's public origin, e.g. `https://gate.example.com`: every absolute URL, the issuer, `aud` and the Bearer realm (its host name) derive from it, never from a request's Host header. A production start (`NODE_ENV=production` with a host that is not localhost) requires `https://` unless `ALLOW_INSECURE_BASE_URL=1`.",
    },
  ),
  DATABASE_URL: described(
    z
      .string()
      .refine((v) => v.startsWith("file:") || /^postgres(ql)?:\/\//.test(v), "must be file:… (SQLite) or postgresql://…")
      .default(DEFAULT_DATABASE_URL),
    {
      group: "database",
      show: "url",
      deploy: "for PostgreSQL (always on Vercel, its pooled URL): `postgresql://…`; unset, the embedded SQLite file",
      description:
        "`file:…` (the embedded SQLite database, relative to the working directory) or `postgresql://…`. The embedded default migrates itself at start; a start never migrates any other database (run `npm run db:migrate` first). Vercel requires PostgreSQL.",
    },
  ),
  RELEASE_MODE: described(z.enum(["public", "private"], { message: "must be public or private" }).default("public"), {
    group: "deployment",
    deploy: "decide: `public` publishes authorization discovery (the default), `private` hides it",
    description:
      "`public`: the authorization discovery documents (the protected resource's and the authorization server's metadata, the JWKS, `/auth.md`) are served and linked from the catalogs, the agent skills index and the Bearer challenges (`resource_metadata`); `private`: they answer JSON 404 and nothing links them (the docs name the example host `https://gate.example.com` for them). The delegated flow itself works in both modes.",
  }),
  SIGNING_KEYS: described(z.string().optional(), {
    group: "deployment",
    show: "secret",
    default: "a key generated at the first start and kept in the database (refused in production)",
    deploy: "production: the identity assertions' keys, from `npm run -s keys:new`",
    description:
      "A JSON array of private Ed25519 JWKs, as `npm run -s keys:new` prints it; the first signs identity assertions, every key verifies them. Required in production. Rotation: [security.md](security.md#rotating-signing-keys).",
  }),
  AUTH_SECRET: described(z.string().min(32, "must be at least 32 characters").optional(), {
    group: "deployment",
    show: "secret",
    default: "generated at the first start and kept in the database (refused in production)",
    deploy: "production: the sessions' secret, from `openssl rand -base64 48`",
    description: "The member sign-in session secret, and the key (derived) that signs device cookies; at least 32 characters. Required in production.",
  }),
  TRUSTED_PROXY: described(
    z
      .string()
      .refine(
        (v) => v === "none" || v === "vercel" || /^[1-9][0-9]?$/.test(v) || parseProxyList(v) !== undefined,
        "must be none, vercel, a hop count 1-99, or a comma list of proxy addresses, CIDR ranges and loopback (e.g. loopback,10.0.0.0/8)",
      )
      .default("none"),
    {
      group: "network",
      default: "`none`; `vercel` under `VERCEL=1`",
      deploy: "behind a reverse proxy: its address (`loopback` on the same host), so each client is a caller of its own",
      description:
        "Whose address a request is, for every per-caller limit. `none`: the socket's peer. A comma list of your proxies' addresses, CIDR ranges and `loopback` (e.g. `loopback,10.0.0.0/8`): the caller is the rightmost address of `X-Forwarded-For` and the socket peer that is not a listed proxy, so a client that reaches the port directly is keyed by its own address. A hop count N: the entry N hops from the right of `X-Forwarded-For`, believed only when the socket peer is in `TRUSTED_PROXY_ADDRESSES`. `vercel`: the platform's header (only under `VERCEL=1`, refused elsewhere). Only npm start (server.ts) sees the socket's peer: a bare `next start` cannot, assumes the nearest hop is a proxy, and so refuses `none` at a production start; npm start accepts `none`.",
    },
  ),
  PORT: described(
    z
      .string()
      .refine((v) => PORT_PATTERN.test(v) && Number(v) <= 65535, "must be a TCP port number (0-65535)")
      .optional(),
    {
      group: "network",
      default: PORT_DEFAULT,
      description: "The port npm start and `npm run demo` listen on (0: a free port the system picks); without `BASE_URL` the service advertises `http://localhost:$PORT`.",
    },
  ),
  HOSTNAME: described(z.string().optional(), {
    group: "network",
    default: "every interface (the systemd unit: `127.0.0.1`)",
    deploy: "behind a proxy on the same host: `127.0.0.1` (the systemd unit sets it)",
    description: "The address npm start listens on.",
  }),
  TRUSTED_PROXY_ADDRESSES: described(
    z
      .string()
      .refine((v) => parseProxyList(v) !== undefined, "must be a comma list of proxy addresses, CIDR ranges and loopback (e.g. loopback,10.0.0.0/8)")
      .default("loopback"),
    {
      group: "network",
      description:
        "With a hop count (`TRUSTED_PROXY=N`): the socket peers whose `X-Forwarded-For` is believed, a comma list of addresses, CIDR ranges and `loopback` (127.0.0.0/8 and ::1); from any other peer the socket address is the caller.",
    },
  ),
  NODE_FRONT: onOff({
    group: "tuning",
    description:
      "`on`: under npm start the token endpoint, the own-account routes, `/ask` and `/mcp` are answered straight from node:http by the same handlers (about ten times less CPU per request than Next's pipeline); `off`: Next serves everything, as on Vercel. The answers are the same.",
  }),
  VERIFIED_AGENT_ALLOWANCE_FACTOR: described(wholeNumber(1, 100).optional(), {
    group: "network",
    default: VERIFIED_AGENT_ALLOWANCE_FACTOR_DEFAULT,
    description:
      "A verified agent's allowance on the caller budgets (MCP, A2A, `/ask`, batch, the simulator, the map search, registration: counted under its origin), as a multiple of an address's; a whole number from 1 to 100.",
  }),
  AGENT_SIGNATURE_REQUIRED: described(z.enum(["0", "1"], { message: "must be 1 (refuse unsigned registrations) or 0" }).default("0"), {
    group: "deployment",
    description:
      '`1`: every registration (`POST /agent/identity`) must carry a verified Web Bot Auth signature; an unsigned one is refused with 401 `signature_required` and a `WWW-Authenticate: Signature` challenge, for every member. `0`: members decide for themselves (the "Only verified agents may ask for access" setting on /account).',
  }),
  AGENT_REPORTS_BLOCK_THRESHOLD: described(wholeNumber(0, 1000).optional(), {
    group: "deployment",
    default: AGENT_REPORTS_BLOCK_THRESHOLD_DEFAULT,
    description:
      'How many distinct members reporting a verified agent origin ("I didn\'t start this") within 24 hours block it automatically: its new registrations get 403 `agent_blocked` and its delegations are cancelled (`npm run -s agents:block -- --unblock` lifts it). `0`: never automatically. Unsigned agents are never blocked on reports.',
  }),
  NODE_ENV: described(z.string().optional(), {
    group: "platform",
    description: "`production` turns on the production checks when `BASE_URL` is not localhost (always on Vercel). npm start and `next start` set it themselves.",
  }),
  VERCEL: described(z.string().optional(), {
    group: "platform",
    description: "Set to `1` by Vercel, never by hand: `BASE_URL`, `DATABASE_URL` and `TRUSTED_PROXY` are then checked for that platform.",
  }),
  VERCEL_PROJECT_PRODUCTION_URL: described(z.string().optional(), {
    group: "platform",
    description: "Set by Vercel: the project's production domain (no scheme), `BASE_URL`'s default there.",
  }),
  ALLOW_INSECURE_BASE_URL: described(z.enum(["0", "1"], { message: "must be 1 (allow an http:// BASE_URL in production) or 0" }).optional(), {
    group: "deployment",
    description: "`1` lets an `http://` `BASE_URL` that is not localhost start in production: a trial on a private network only (no TLS, so no `Secure`-only cookies and no HSTS).",
  }),
  ...admissionEnvShape(),
  ...settingsEnvSchema.shape,
});

/** The schemas that together read the environment (the RATE_LIMIT_* allowances apart: lib/rate-limit names them). */
export const SETTING_SCHEMAS: readonly z.ZodObject[] = [rawEnvSchema, operationsSchema, tracingSchema, sharedStateSchema];

/** Every name the schemas read. */
const SCHEMA_NAMES: ReadonlySet<string> = new Set(SETTING_SCHEMAS.flatMap((schema) => Object.keys(schema.shape)));

/** The families whose names the schemas hold (the budgets' family is checked with the budget table, lib/rate-limit). */
const SCHEMA_PREFIXES = SETTING_PREFIXES.filter((prefix) => prefix !== ALLOWANCE_PREFIX);

/** `loopback` in a proxy list: the whole IPv4 loopback range and ::1. */
const LOOPBACK_RANGES = ["127.0.0.0/8", "::1/128"];

/**
 * A comma list of proxy addresses, CIDR ranges and `loopback` as normalised CIDR texts ("10.0.0.0/8",
 * "::1/128"; an IPv4-mapped IPv6 entry as its IPv4), or undefined when an entry is neither. IPv4 only as
 * dotted quads (no "127.1").
 */
export function parseProxyList(text: string): string[] | undefined {
  const ranges = new Set<string>();
  for (const raw of text.split(",")) {
    const entry = raw.trim().replace(/^\[|\]$/g, "");
    if (entry === "loopback") {
      for (const range of LOOPBACK_RANGES) ranges.add(range);
      continue;
    }
    const [address, bits, ...rest] = entry.split("/");
    if (rest.length > 0 || address === undefined) return undefined;
    const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
    if (!v4 && !ipaddr.IPv6.isValid(address)) return undefined;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6 = v4 ? ipaddr.IPv4.parse(address) : ipaddr.IPv6.parse(address);
    let prefix = bits === undefined ? (v4 ? 32 : 128) : /^[0-9]{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) {
      parsed = parsed.toIPv4Address();
      prefix -= 96;
    }
    const max = parsed.kind() === "ipv4" ? 32 : 128;
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return undefined;
    // The network address of the range (10.1.2.3/8 is 10.0.0.0/8), so equal ranges are one entry.
    const network =
      parsed.kind() === "ipv4" ? ipaddr.IPv4.networkAddressFromCIDR(`${parsed.toString()}/${prefix}`) : ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${prefix}`);
    ranges.add(`${network.toString()}/${prefix}`);
  }
  return ranges.size > 0 ? [...ranges] : undefined;
}

/**
 * Whose address is the caller's (lib/http/client-ip.ts). `proxies`: CIDR texts of the socket peers that are our
 * own proxies; X-Forwarded-For is believed only from them. `hops`: a count of proxies (believed only when the
 * socket peer is in TRUSTED_PROXY_ADDRESSES); `proxies`: the rightmost address that is not one of them.
 */
export type TrustedProxy = { kind: "none" } | { kind: "vercel" } | { kind: "hops"; hops: number; proxies: readonly string[] } | { kind: "proxies"; proxies: readonly string[] };

export interface AppConfig {
  baseUrl: string;
  /** Host name of BASE_URL without port: the Bearer realm. */
  realm: string;
  databaseUrl: string;
  databaseProvider: "sqlite" | "postgresql";
  releaseMode: "public" | "private";
  /** Private Ed25519 JWKs from SIGNING_KEYS; undefined means "use the locally generated key". */
  signingKeys: Ed25519PrivateJwk[] | undefined;
  authSecret: string | undefined;
  trustedProxy: TrustedProxy;
  /** Serve the hottest API paths from node:http under `next start` (lib/front). */
  nodeFront: boolean;
  production: boolean;
  /** Admission control under npm start (lib/admission). */
  admission: AdmissionConfig;
  /** VERCEL=1: Next's after() and the cron routes deliver webhooks (no loop runs between requests). */
  vercel: boolean;
  /** JANITOR: server.ts runs the janitor's loop. */
  janitor: boolean;
  /** WEBHOOK_DELIVERY: server.ts runs the webhook delivery loop. */
  webhookDelivery: boolean;
  /** PORT: where npm start listens (0: a free port the system picks). */
  port: number;
  /** HOSTNAME: the interface npm start listens on; undefined: every interface. */
  hostname: string | undefined;
  /** The webhook settings (WEBHOOK_*, issue 33). */
  webhooks: WebhookSettings;
  /** CONTENT_DIR: the documentation corpus's directory; undefined: content/docs of the app. */
  contentDir: string | undefined;
  /** The operator settings (./operations.ts: janitor, pool, logs, metrics, cron). */
  operations: OperationsConfig;
  /** The RATE_LIMIT_* variables that are set, each a whole number or "invalid" (lib/rate-limit/budgets.ts names them; a start refuses an invalid one). */
  rateLimitAllowances: Readonly<Record<string, number | "invalid">>;
  /** OpenTelemetry's OTEL_* variables (./tracing.ts, lib/tracing): off unless an OTLP endpoint is set. */
  tracing: TracingConfig;
  /** The same variables for metrics (request counts and latencies pushed over OTLP): off unless an OTLP endpoint is set. */
  otlpMetrics: OtlpMetricsConfig;
  /** SHARED_STATE, REDIS_URL, SHARED_STATE_DEADLINE_MS (./shared-state.ts, lib/shared-state): where the fleet's budgets and once-keys live. */
  sharedState: SharedStateConfig;
  /** AGENT_DIRECTORY_ALLOW_PRIVATE=1: agents' key directories may be http:// and at private addresses (tests, local use). */
  agentDirectoryAllowPrivate: boolean;
  /** VERIFIED_AGENT_ALLOWANCE_FACTOR: a verified agent's caller budgets are this many times an address's (default 2). */
  verifiedAgentAllowanceFactor: number;
  /** AGENT_SIGNATURE_REQUIRED=1: unsigned registrations are refused with 401 signature_required (issue 53). */
  agentSignatureRequired: boolean;
  /** AGENT_REPORTS_BLOCK_THRESHOLD: distinct reporters within 24 hours that block a verified origin; 0: never (issue 53). */
  agentReportsBlockThreshold: number;
}

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE=1: webhooks may use http and reach private addresses (tests, local use). */
  allowPrivate: boolean;
  /** The tests' --test-webhook-after-response (./test-options.ts): a delivery pass after each response that caused an event, as on Vercel. */
  afterResponse: boolean;
  /** The tests' --test-webhook-retry-scale: multiplies every retry interval and the three days before giving up (1). */
  retryScale: number;
  /** The tests' --test-webhook-poll-ms: milliseconds between the delivery loop's passes (1000). */
  pollMs: number;
  /** WEBHOOK_TIMEOUT_SECONDS: seconds a delivery attempt may take. */
  timeoutSeconds: number;
}

export const ed25519PrivateJwkSchema = z
  .object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string().min(43), d: z.string().min(43), kid: z.string().optional() })
  .loose();
export type Ed25519PrivateJwk = z.infer<typeof ed25519PrivateJwkSchema>;

function isLocalhost(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/** One thing that stops the start: the variable and what is wrong with it, including the fix. */
export interface ConfigProblem {
  variable: string;
  /** Follows the variable name: "must be public or private", "is required in production (…): set …". */
  detail: string;
}

/** The one line printed for a problem at start (and the message of a single-problem ConfigError). */
export function configProblemLine(problem: ConfigProblem): string {
  return `Invalid configuration: ${problem.variable} ${problem.detail}`;
}

/** Every problem of the environment at once; `variable` is the first one's (one line per problem in the message). */
export class ConfigError extends Error {
  readonly variable: string;
  readonly problems: readonly ConfigProblem[];
  /** `new ConfigError(problems)`, or `new ConfigError(variable, detail)` for one problem (the original form). */
  constructor(problems: string | ConfigProblem | readonly ConfigProblem[], detail = "is invalid") {
    const list: readonly ConfigProblem[] = typeof problems === "string" ? [{ variable: problems, detail }] : Array.isArray(problems) ? problems : [problems as ConfigProblem];
    super(list.map(configProblemLine).join("\n"));
    this.name = "ConfigError";
    this.variable = list[0]?.variable ?? "environment";
    this.problems = list;
  }
}

/**
 * The outcome of the checks. `variables`: the variables they read (blank ones unset), for the start's own checks
 * (lib/startup/preflight.ts: the database, the rate-limit budgets), whatever the outcome.
 */
export type ConfigCheck = ({ ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] }) & { variables: Readonly<Record<string, string | undefined>> };

/** The rate-limit allowances' variables (their names are lib/rate-limit/budgets.ts's). */
const RATE_LIMIT_PREFIX = "RATE_LIMIT_";

/** Freezes the configuration and everything in it, so no reader can change what the others read. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** The Ed25519 private-key JWK members, each 32 bytes in base64url. */
const BASE64URL_32 = /^[A-Za-z0-9_-]{43}$/;
const SIGNING_KEYS_SHAPE = "must be a non-empty JSON array of private Ed25519 JWKs (kty OKP, crv Ed25519, x, d; npm run -s keys:new prints one)";

/** RFC 7638 thumbprint of an Ed25519 public key: what lib/keys uses as kid. */
function ed25519Thumbprint(x: string): string {
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}

/** True when `x` is the public key of `d` (a pasted pair can be mismatched; signatures would then never verify). */
function isKeyPair(x: string, d: string): boolean {
  try {
    const privateKey = createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x, d }, format: "jwk" });
    return createPublicKey(privateKey).export({ format: "jwk" }).x === x;
  } catch {
    return false;
  }
}

/** SIGNING_KEYS: a non-empty array of private Ed25519 JWKs whose kids (explicit, else the thumbprint) and keys are distinct. */
function parseSigningKeys(text: string, problems: ConfigProblem[]): Ed25519PrivateJwk[] | undefined {
  const fail = (detail: string): undefined => {
    problems.push({ variable: "SIGNING_KEYS", detail });
    return undefined;
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail(`is not JSON: it ${SIGNING_KEYS_SHAPE}`);
  }
  if (!Array.isArray(json) || json.length === 0) return fail(SIGNING_KEYS_SHAPE);
  const keys: Ed25519PrivateJwk[] = [];
  for (const [index, entry] of json.entries()) {
    const key = ed25519PrivateJwkSchema.safeParse(entry);
    if (!key.success || !BASE64URL_32.test(key.data.x) || !BASE64URL_32.test(key.data.d)) return fail(`key ${index + 1} is not a private Ed25519 JWK: it ${SIGNING_KEYS_SHAPE}`);
    if (!isKeyPair(key.data.x, key.data.d)) return fail(`key ${index + 1}: x is not the public key of d; export the key pair again`);
    keys.push(key.data);
  }
  const seenKeys = new Map<string, number>();
  const seenKids = new Map<string, number>();
  for (const [index, key] of keys.entries()) {
    const thumbprint = ed25519Thumbprint(key.x);
    const kid = key.kid ?? thumbprint;
    const sameKey = seenKeys.get(thumbprint);
    if (sameKey !== undefined) return fail(`holds the same key twice (keys ${sameKey + 1} and ${index + 1}): remove the duplicate`);
    const sameKid = seenKids.get(kid);
    if (sameKid !== undefined)
      return fail(`gives keys ${sameKid + 1} and ${index + 1} the same kid "${kid}": give each key its own kid, or omit kid (the RFC 7638 thumbprint is used)`);
    seenKeys.set(thumbprint, index);
    seenKids.set(kid, index);
  }
  return keys;
}

function invalidPort(port: string | undefined): boolean {
  return port !== undefined && !rawEnvSchema.shape.PORT.safeParse(port).success;
}

/** Where BASE_URL comes from under VERCEL=1 when it is unset: the project's production domain, over https. */
function vercelBaseUrl(host: string | undefined): string | undefined {
  return host === undefined ? undefined : `https://${host.replace(/^https?:\/\//, "").replace(/\/+$/, "")}`;
}

/**
 * Checks the variables (and the tests' `--test-` flags among `args`, ./test-options.ts) and collects every problem
 * (never throws); the configuration it builds is frozen.
 */
export function checkConfig(env: Readonly<Record<string, string | undefined>>, args: readonly string[] = []): ConfigCheck {
  const cleaned: Record<string, string | undefined> = {};
  for (const key of Object.keys(rawEnvSchema.shape)) {
    const value = env[key];
    cleaned[key] = value === undefined || value === "" ? undefined : value;
  }
  const rateLimitAllowances: Record<string, number | "invalid"> = {};
  for (const key of Object.keys(env)) {
    if (!key.startsWith(RATE_LIMIT_PREFIX)) continue;
    cleaned[key] = env[key] === "" ? undefined : env[key];
    const allowance = parseAllowance(env[key]);
    if (allowance !== undefined) rateLimitAllowances[key] = allowance;
  }
  const variables = { ...cleaned };
  const onVercel = cleaned.VERCEL === "1";
  // A misspelt setting would start with its default in silence: refused, with the name that was probably meant.
  const problems: ConfigProblem[] = unknownSettingProblems(env, SCHEMA_NAMES, SCHEMA_PREFIXES);
  // On Vercel an unset BASE_URL is the project's production domain (set by the platform), never localhost.
  const derivedBaseUrl = onVercel && cleaned.BASE_URL === undefined ? vercelBaseUrl(cleaned.VERCEL_PROJECT_PRODUCTION_URL) : undefined;
  if (derivedBaseUrl !== undefined) cleaned.BASE_URL = derivedBaseUrl;
  // On Vercel the client address comes from the platform's header.
  if (onVercel) cleaned.TRUSTED_PROXY ??= "vercel";
  // Elsewhere an unset BASE_URL is this machine at PORT (cleaned.BASE_URL stays unset for the checks below).
  const localDefault = onVercel ? undefined : localBaseUrl(invalidPort(cleaned.PORT) ? undefined : cleaned.PORT);
  const parsed = rawEnvSchema.safeParse({ ...cleaned, BASE_URL: cleaned.BASE_URL ?? localDefault });
  const invalid = new Set<string>();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = derivedBaseUrl !== undefined && issue.path[0] === "BASE_URL" ? "VERCEL_PROJECT_PRODUCTION_URL" : String(issue.path[0] ?? "environment");
      if (invalid.has(variable)) continue; // one line per variable
      invalid.add(variable);
      problems.push({ variable, detail: issue.message });
    }
  }
  const raw = parsed.success ? parsed.data : undefined;
  const signingKeys = cleaned.SIGNING_KEYS === undefined ? undefined : parseSigningKeys(cleaned.SIGNING_KEYS, problems);
  const baseUrl = safeBaseUrl(cleaned.BASE_URL ?? localDefault);
  const databaseUrl = invalid.has("DATABASE_URL") ? undefined : (cleaned.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  // A Vercel deployment is public whatever BASE_URL says (so a missing BASE_URL does not hide the other problems).
  const production = cleaned.NODE_ENV === "production" && (onVercel || (baseUrl !== undefined && !isLocalhost(baseUrl)));
  const productionWhy = onVercel ? "(NODE_ENV=production on Vercel)" : "(NODE_ENV=production with a non-localhost BASE_URL)";

  if (onVercel) {
    if (cleaned.BASE_URL === undefined)
      problems.push({
        variable: "BASE_URL",
        detail: "is required on Vercel (VERCEL=1): set it to the public https origin (e.g. https://gate.example.com), or let Vercel set VERCEL_PROJECT_PRODUCTION_URL",
      });
    if (databaseUrl?.startsWith("file:"))
      problems.push({
        variable: "DATABASE_URL",
        detail: "must be a postgresql:// URL on Vercel (VERCEL=1): an SQLite file lives and dies with one instance; set DATABASE_URL to your PostgreSQL database",
      });
    if (cleaned.TRUSTED_PROXY !== "vercel" && !invalid.has("TRUSTED_PROXY"))
      problems.push({
        variable: "TRUSTED_PROXY",
        detail: `must be vercel on Vercel (VERCEL=1), not ${cleaned.TRUSTED_PROXY}: remove it (the default there is vercel) or set TRUSTED_PROXY=vercel`,
      });
  }
  // vercel believes X-Vercel-Forwarded-For / X-Real-IP, which only Vercel's edge overwrites: anywhere else the client writes them.
  if (!onVercel && cleaned.TRUSTED_PROXY === "vercel")
    problems.push({
      variable: "TRUSTED_PROXY",
      detail:
        "is vercel, but this is not Vercel (VERCEL=1 is unset): the client would choose its own address with X-Real-IP; set TRUSTED_PROXY to your proxies' addresses (e.g. loopback) or a hop count, or none",
    });
  // Signed payloads in plaintext and requests into the private network are for tests and local use only.
  if (production && cleaned.WEBHOOK_ALLOW_PRIVATE === "1")
    problems.push({
      variable: "WEBHOOK_ALLOW_PRIVATE",
      detail: `must not be 1 in production ${productionWhy}: it sends signed webhooks over plain http and to private addresses; remove it and use https endpoints at public addresses`,
    });
  if (production && cleaned.AGENT_DIRECTORY_ALLOW_PRIVATE === "1")
    problems.push({
      variable: "AGENT_DIRECTORY_ALLOW_PRIVATE",
      detail: `must not be 1 in production ${productionWhy}: it fetches agents' key directories over plain http and from private addresses; remove it (agents publish their directories over https at public addresses)`,
    });
  if (production && cleaned.BASE_URL !== undefined && baseUrl?.startsWith("http:") && cleaned.ALLOW_INSECURE_BASE_URL !== "1")
    problems.push({
      variable: "BASE_URL",
      detail: `must be https:// in production ${productionWhy}: serve it over TLS and set BASE_URL=https://…, or set ALLOW_INSECURE_BASE_URL=1 for a trial on a private network`,
    });
  if (production && cleaned.SIGNING_KEYS === undefined)
    problems.push({
      variable: "SIGNING_KEYS",
      detail: `is required in production ${productionWhy}: set it to a JSON array of private Ed25519 JWKs (npm run -s keys:new prints one)`,
    });
  if (production && cleaned.AUTH_SECRET === undefined && !invalid.has("AUTH_SECRET"))
    problems.push({
      variable: "AUTH_SECRET",
      detail: `is required in production ${productionWhy}: set it to a random string of at least 32 characters (e.g. openssl rand -base64 48)`,
    });
  // The operator settings: a malformed one is refused, not silently replaced by its default.
  problems.push(...operationsProblems(env));
  problems.push(...tracingProblems(env));
  problems.push(...sharedStateProblems(env, databaseUrl === undefined ? undefined : databaseUrl.startsWith("file:") ? "sqlite" : "postgresql", onVercel));
  // The tests' options are for a test's own server only.
  const tests = testOptionsFrom(args);
  problems.push(...tests.problems);
  if (production)
    for (const flag of tests.given) problems.push({ variable: flag, detail: `is a test option, refused in production ${productionWhy}: remove it from the command line` });

  if (problems.length > 0 || !raw) return { ok: false, problems, variables };
  const trustedProxy: TrustedProxy =
    raw.TRUSTED_PROXY === "none"
      ? { kind: "none" }
      : raw.TRUSTED_PROXY === "vercel"
        ? { kind: "vercel" }
        : /^[0-9]+$/.test(raw.TRUSTED_PROXY)
          ? { kind: "hops", hops: Number(raw.TRUSTED_PROXY), proxies: parseProxyList(raw.TRUSTED_PROXY_ADDRESSES) ?? LOOPBACK_RANGES }
          : { kind: "proxies", proxies: parseProxyList(raw.TRUSTED_PROXY) ?? LOOPBACK_RANGES };
  return {
    ok: true,
    variables,
    config: deepFreeze<AppConfig>({
      baseUrl: raw.BASE_URL,
      realm: new URL(raw.BASE_URL).hostname,
      databaseUrl: raw.DATABASE_URL,
      databaseProvider: raw.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql",
      releaseMode: raw.RELEASE_MODE,
      signingKeys,
      authSecret: raw.AUTH_SECRET,
      trustedProxy,
      nodeFront: raw.NODE_FRONT === "on",
      production,
      admission: admissionConfig(raw),
      vercel: onVercel,
      janitor: raw.JANITOR === "on",
      webhookDelivery: raw.WEBHOOK_DELIVERY === "on",
      port: raw.PORT === undefined ? PORT_DEFAULT : Number(raw.PORT),
      hostname: raw.HOSTNAME,
      webhooks: {
        allowPrivate: raw.WEBHOOK_ALLOW_PRIVATE === "1",
        afterResponse: tests.options.webhookAfterResponse,
        retryScale: tests.options.webhookRetryScale,
        pollMs: tests.options.webhookPollMs,
        timeoutSeconds: raw.WEBHOOK_TIMEOUT_SECONDS,
      },
      contentDir: raw.CONTENT_DIR?.trim() || undefined,
      operations: operationsFrom(env),
      rateLimitAllowances,
      tracing: tracingFrom(env),
      otlpMetrics: otlpMetricsFrom(env),
      sharedState: sharedStateFrom(env, raw.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql"),
      agentDirectoryAllowPrivate: raw.AGENT_DIRECTORY_ALLOW_PRIVATE === "1",
      verifiedAgentAllowanceFactor: raw.VERIFIED_AGENT_ALLOWANCE_FACTOR ?? VERIFIED_AGENT_ALLOWANCE_FACTOR_DEFAULT,
      agentSignatureRequired: raw.AGENT_SIGNATURE_REQUIRED === "1",
      agentReportsBlockThreshold: raw.AGENT_REPORTS_BLOCK_THRESHOLD ?? AGENT_REPORTS_BLOCK_THRESHOLD_DEFAULT,
    }),
  };
}

/** BASE_URL (or its default) when valid, whatever the other variables (one bad one fails the whole parse). */
function safeBaseUrl(value: string | undefined): string | undefined {
  const parsed = rawEnvSchema.shape.BASE_URL.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The configuration of these variables and arguments (nothing else is read); throws one ConfigError listing every problem. */
export function configFrom(env: Readonly<Record<string, string | undefined>>, args: readonly string[] = []): AppConfig {
  const checked = checkConfig(env, args);
  if (!checked.ok) throw new ConfigError(checked.problems);
  return checked.config;
}
