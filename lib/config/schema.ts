import { z } from "zod";

/** Environment variables of CONTRACT.md §1, validated once at start. */
export const rawEnvSchema = z.object({
  BASE_URL: z
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
    .default("http://localhost:3000"),
  DATABASE_URL: z
    .string()
    .refine((v) => v.startsWith("file:") || /^postgres(ql)?:\/\//.test(v), "must be file:… (SQLite) or postgresql://…")
    .default("file:./data/app.db"),
  RELEASE_MODE: z.enum(["public", "private"], { message: "must be public or private" }).default("public"),
  SIGNING_KEYS: z.string().optional(),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  TRUSTED_PROXY: z
    .string()
    .refine((v) => v === "none" || v === "vercel" || /^[1-9][0-9]?$/.test(v), "must be none, vercel or a hop count 1-99")
    .default("none"),
  NODE_FRONT: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
  NODE_ENV: z.string().optional(),
});

export type TrustedProxy = { kind: "none" } | { kind: "vercel" } | { kind: "hops"; hops: number };

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
}

export const ed25519PrivateJwkSchema = z
  .object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string().min(43), d: z.string().min(43), kid: z.string().optional() })
  .loose();
export type Ed25519PrivateJwk = z.infer<typeof ed25519PrivateJwkSchema>;

const signingKeysSchema = z.array(ed25519PrivateJwkSchema).min(1, "must hold at least one key");

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = "ConfigError";
  }
}

function isLocalhost(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/** Parses the environment into the app configuration; throws ConfigError naming the first bad variable. */
export function parseConfig(env: Record<string, string | undefined>): AppConfig {
  const cleaned: Record<string, string | undefined> = {};
  for (const key of Object.keys(rawEnvSchema.shape)) {
    const value = env[key];
    cleaned[key] = value === undefined || value === "" ? undefined : value;
  }
  const parsed = rawEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new ConfigError(variable, issue?.message ?? "is invalid");
  }
  const raw = parsed.data;
  let signingKeys: Ed25519PrivateJwk[] | undefined;
  if (raw.SIGNING_KEYS !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(raw.SIGNING_KEYS);
    } catch {
      throw new ConfigError("SIGNING_KEYS", "must be a JSON array of private Ed25519 JWKs");
    }
    const keys = signingKeysSchema.safeParse(json);
    if (!keys.success) throw new ConfigError("SIGNING_KEYS", "must be a JSON array of private Ed25519 JWKs (kty OKP, crv Ed25519, x, d)");
    signingKeys = keys.data;
  }
  const production = raw.NODE_ENV === "production" && !isLocalhost(raw.BASE_URL);
  if (production && !signingKeys) throw new ConfigError("SIGNING_KEYS", "is required in production (NODE_ENV=production with a non-localhost BASE_URL)");
  if (production && !raw.AUTH_SECRET) throw new ConfigError("AUTH_SECRET", "is required in production (NODE_ENV=production with a non-localhost BASE_URL)");
  const trustedProxy: TrustedProxy =
    raw.TRUSTED_PROXY === "none" ? { kind: "none" } : raw.TRUSTED_PROXY === "vercel" ? { kind: "vercel" } : { kind: "hops", hops: Number(raw.TRUSTED_PROXY) };
  return {
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
  };
}
