import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkConfig, ConfigError, configFrom, configProblemLine } from "@/lib/config/schema";

const KEY = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
// A second key: SIGNING_KEYS refuses the same key twice (issue 19).
const KEY2 = { kty: "OKP", crv: "Ed25519", x: "RvV7RUv-MB_ThaaF0oit_JkXLoDFkuwCA5Dmx9DVxyM", d: "BHoo5ZYExryn-r89GnQtmtggvjoom74cSiyZUa4gqow" };

describe("configFrom", () => {
  it("has the local defaults of CONTRACT.md §1", () => {
    const config = configFrom({});
    expect(config).toMatchObject({
      baseUrl: "http://localhost:3000",
      realm: "localhost",
      databaseUrl: "file:./data/app.db",
      databaseProvider: "sqlite",
      releaseMode: "public",
      signingKeys: undefined,
      authSecret: undefined,
      trustedProxy: { kind: "none" },
      production: false,
    });
  });

  it("without BASE_URL, advertises this machine at PORT, as npm start listens (issue 42)", () => {
    expect(configFrom({ PORT: "3110" }).baseUrl).toBe("http://localhost:3110");
    expect(configFrom({ PORT: "3110", BASE_URL: "" }).baseUrl).toBe("http://localhost:3110");
    expect(configFrom({ PORT: "3110", BASE_URL: "https://gate.example.com" }).baseUrl).toBe("https://gate.example.com");
    // PORT 0 (any free port) names no port: the default one stays.
    expect(configFrom({ PORT: "0" }).baseUrl).toBe("http://localhost:3000");
    expect(checkConfig({ PORT: "70000" })).toMatchObject({ ok: false, problems: [{ variable: "PORT", detail: "must be a TCP port number (0-65535)" }] });
    // On Vercel the platform's domain is the default, whatever PORT says.
    expect(configFrom({ VERCEL: "1", PORT: "3110", VERCEL_PROJECT_PRODUCTION_URL: "gate.example.com", DATABASE_URL: "postgresql://u:p@db/app" }).baseUrl).toBe(
      "https://gate.example.com",
    );
  });

  it("derives the realm from BASE_URL's host name without port and drops a trailing slash", () => {
    const config = configFrom({ BASE_URL: "https://gate.example.com:8443/" });
    expect(config.baseUrl).toBe("https://gate.example.com:8443");
    expect(config.realm).toBe("gate.example.com");
  });

  it("recognizes PostgreSQL URLs", () => {
    expect(configFrom({ DATABASE_URL: "postgresql://u:p@db:5432/app" }).databaseProvider).toBe("postgresql");
    expect(configFrom({ DATABASE_URL: "postgres://u:p@db:5432/app" }).databaseProvider).toBe("postgresql");
  });

  it.each([
    ["BASE_URL", "not a url"],
    ["BASE_URL", "ftp://gate.example.com"],
    ["BASE_URL", "https://gate.example.com/prefix"],
    ["BASE_URL", "https://gate.example.com/?q=1"],
    ["DATABASE_URL", "mysql://db/app"],
    ["RELEASE_MODE", "staging"],
    ["TRUSTED_PROXY", "all"],
    ["TRUSTED_PROXY", "0"],
    ["NODE_FRONT", "yes"],
    ["AUTH_SECRET", "short"],
    ["SIGNING_KEYS", "not json"],
    ["SIGNING_KEYS", "[]"],
    ["SIGNING_KEYS", JSON.stringify([{ kty: "RSA", n: "x", e: "AQAB" }])],
  ])("a bad %s (%s) throws a ConfigError naming it", (variable, value) => {
    let caught: unknown;
    try {
      configFrom({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
    expect((caught as ConfigError).message).not.toContain("\n");
  });

  it("gives a verified agent VERIFIED_AGENT_ALLOWANCE_FACTOR times an address's allowance, two unless set, from 1 to 100", () => {
    expect(configFrom({}).verifiedAgentAllowanceFactor).toBe(2);
    expect(configFrom({ VERIFIED_AGENT_ALLOWANCE_FACTOR: "1" }).verifiedAgentAllowanceFactor).toBe(1);
    expect(configFrom({ VERIFIED_AGENT_ALLOWANCE_FACTOR: "100" }).verifiedAgentAllowanceFactor).toBe(100);
    for (const value of ["0", "101", "-1", "1.5", "double"]) {
      const checked = checkConfig({ VERIFIED_AGENT_ALLOWANCE_FACTOR: value });
      expect(checked.ok, value).toBe(false);
      if (!checked.ok) expect(checked.problems).toEqual([{ variable: "VERIFIED_AGENT_ALLOWANCE_FACTOR", detail: "must be a whole number from 1 to 100" }]);
    }
  });

  it("parses trusted proxy policies: a hop count believed from TRUSTED_PROXY_ADDRESSES (default loopback), or a proxy list", () => {
    expect(configFrom({ VERCEL: "1", BASE_URL: "https://gate.example.com", DATABASE_URL: "postgresql://db/app", TRUSTED_PROXY: "vercel" }).trustedProxy).toEqual({
      kind: "vercel",
    });
    expect(configFrom({ TRUSTED_PROXY: "2" }).trustedProxy).toEqual({ kind: "hops", hops: 2, proxies: ["127.0.0.0/8", "::1/128"] });
    expect(configFrom({ TRUSTED_PROXY: "1", TRUSTED_PROXY_ADDRESSES: "10.0.0.7, fd00::/8" }).trustedProxy).toEqual({
      kind: "hops",
      hops: 1,
      proxies: ["10.0.0.7/32", "fd00::/8"],
    });
    expect(configFrom({ TRUSTED_PROXY: "loopback,10.0.0.0/8" }).trustedProxy).toEqual({ kind: "proxies", proxies: ["127.0.0.0/8", "::1/128", "10.0.0.0/8"] });
    expect(configFrom({ TRUSTED_PROXY: "192.0.2.10" }).trustedProxy).toEqual({ kind: "proxies", proxies: ["192.0.2.10/32"] });
  });

  it("refuses a malformed proxy list with one line naming the accepted forms", () => {
    for (const [variable, value] of [
      ["TRUSTED_PROXY", "loopback,10.0.0.0/33"],
      ["TRUSTED_PROXY", "proxy.example.com"],
      ["TRUSTED_PROXY_ADDRESSES", "127.1"],
      ["TRUSTED_PROXY_ADDRESSES", "everyone"],
    ]) {
      expect(problemVariables({ TRUSTED_PROXY: "1", [variable]: value }), value).toEqual([variable]);
      expect(problemText({ TRUSTED_PROXY: "1", [variable]: value })).toMatch(new RegExp(`^${variable} .*comma list of proxy addresses, CIDR ranges and loopback`));
    }
  });

  it("refuses TRUSTED_PROXY=vercel outside Vercel: X-Real-IP would be the client's to write", () => {
    expect(problemVariables({ TRUSTED_PROXY: "vercel" })).toEqual(["TRUSTED_PROXY"]);
    expect(problemText({ TRUSTED_PROXY: "vercel" })).toMatch(/^TRUSTED_PROXY is vercel, but this is not Vercel \(VERCEL=1 is unset\)/);
  });

  it("refuses WEBHOOK_ALLOW_PRIVATE=1 in production, and allows it locally", () => {
    const prod = { NODE_ENV: "production", BASE_URL: "https://gate.example.com", AUTH_SECRET: "s".repeat(40), SIGNING_KEYS: JSON.stringify([KEY]) };
    expect(problemVariables({ ...prod, WEBHOOK_ALLOW_PRIVATE: "1" })).toEqual(["WEBHOOK_ALLOW_PRIVATE"]);
    expect(problemText({ ...prod, WEBHOOK_ALLOW_PRIVATE: "1" })).toMatch(
      /^WEBHOOK_ALLOW_PRIVATE must not be 1 in production \(NODE_ENV=production with a non-localhost BASE_URL\): .*https/,
    );
    expect(problemVariables({ ...prod, WEBHOOK_ALLOW_PRIVATE: "0" })).toEqual([]);
    expect(problemVariables({ NODE_ENV: "production", BASE_URL: "http://localhost:3000", WEBHOOK_ALLOW_PRIVATE: "1" })).toEqual([]);
  });

  it("refuses AGENT_DIRECTORY_ALLOW_PRIVATE=1 in production, allows it locally, and takes only 0 or 1", () => {
    const prod = { NODE_ENV: "production", BASE_URL: "https://gate.example.com", AUTH_SECRET: "s".repeat(40), SIGNING_KEYS: JSON.stringify([KEY]) };
    expect(problemVariables({ ...prod, AGENT_DIRECTORY_ALLOW_PRIVATE: "1" })).toEqual(["AGENT_DIRECTORY_ALLOW_PRIVATE"]);
    expect(problemText({ ...prod, AGENT_DIRECTORY_ALLOW_PRIVATE: "1" })).toMatch(
      /^AGENT_DIRECTORY_ALLOW_PRIVATE must not be 1 in production \(NODE_ENV=production with a non-localhost BASE_URL\): /,
    );
    expect(problemVariables({ ...prod, AGENT_DIRECTORY_ALLOW_PRIVATE: "0" })).toEqual([]);
    expect(problemVariables({ NODE_ENV: "production", BASE_URL: "http://localhost:3000", AGENT_DIRECTORY_ALLOW_PRIVATE: "1" })).toEqual([]);
    expect(problemVariables({ AGENT_DIRECTORY_ALLOW_PRIVATE: "yes" })).toEqual(["AGENT_DIRECTORY_ALLOW_PRIVATE"]);
  });

  it("accepts SIGNING_KEYS as an array of private Ed25519 JWKs", () => {
    expect(configFrom({ SIGNING_KEYS: JSON.stringify([KEY, KEY2]) }).signingKeys).toHaveLength(2);
  });

  describe("production (NODE_ENV=production and a non-localhost BASE_URL)", () => {
    const prod = { NODE_ENV: "production", BASE_URL: "https://gate.example.com" };
    const secret = "s".repeat(40);
    it("refuses to start without SIGNING_KEYS", () => {
      expect(() => configFrom({ ...prod, AUTH_SECRET: secret })).toThrow(/SIGNING_KEYS is required in production/);
    });
    it("refuses to start without AUTH_SECRET", () => {
      expect(() => configFrom({ ...prod, SIGNING_KEYS: JSON.stringify([KEY]) })).toThrow(/AUTH_SECRET is required in production/);
    });
    it("starts with both", () => {
      expect(configFrom({ ...prod, AUTH_SECRET: secret, SIGNING_KEYS: JSON.stringify([KEY]) }).production).toBe(true);
    });
    it("is not production on localhost", () => {
      expect(configFrom({ NODE_ENV: "production", BASE_URL: "http://localhost:4000" }).production).toBe(false);
    });
  });

  it("never throws anything but ConfigError, whatever the environment (property)", () => {
    const variables = [
      "BASE_URL",
      "DATABASE_URL",
      "RELEASE_MODE",
      "SIGNING_KEYS",
      "AUTH_SECRET",
      "TRUSTED_PROXY",
      "NODE_ENV",
      "VERCEL",
      "VERCEL_PROJECT_PRODUCTION_URL",
      "ALLOW_INSECURE_BASE_URL",
      "SHARED_STATE",
      "REDIS_URL",
      "SHARED_STATE_DEADLINE_MS",
      "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
      "OTEL_METRIC_EXPORT_INTERVAL",
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...variables), fc.oneof(fc.string(), fc.webUrl(), fc.json())), (env) => {
        try {
          const config = configFrom(env);
          expect(config.baseUrl).toMatch(/^https?:\/\//);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** The variables named by every problem of an environment (checkConfig never throws). */
function problemVariables(env: Record<string, string>): string[] {
  const checked = checkConfig(env);
  return checked.ok ? [] : checked.problems.map((p) => p.variable);
}

function problemText(env: Record<string, string>): string {
  const checked = checkConfig(env);
  return checked.ok ? "" : checked.problems.map((p) => `${p.variable} ${p.detail}`).join("\n");
}

describe("every problem at once (issue 19)", () => {
  it("reports each bad variable, not only the first, and ConfigError lists them one per line", () => {
    const env = { BASE_URL: "not a url", RELEASE_MODE: "staging", TRUSTED_PROXY: "all", SIGNING_KEYS: "[]" };
    expect(problemVariables(env).sort()).toEqual(["BASE_URL", "RELEASE_MODE", "SIGNING_KEYS", "TRUSTED_PROXY"]);
    let caught: unknown;
    try {
      configFrom(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems).toHaveLength(4);
    expect(error.message.split("\n")).toHaveLength(4);
    for (const line of error.message.split("\n")) expect(line).toMatch(/^Invalid configuration: [A-Z_]+ /);
  });

  it("ConfigError keeps its one-problem form (variable, detail)", () => {
    const error = new ConfigError("NODE_FRONT", "must be on or off");
    expect(error.variable).toBe("NODE_FRONT");
    expect(error.message).toBe("Invalid configuration: NODE_FRONT must be on or off");
    expect(error.problems).toEqual([{ variable: "NODE_FRONT", detail: "must be on or off" }]);
  });

  it("production lists SIGNING_KEYS, AUTH_SECRET and an http BASE_URL together", () => {
    expect(problemVariables({ NODE_ENV: "production", BASE_URL: "http://gate.example.com" })).toEqual(["BASE_URL", "SIGNING_KEYS", "AUTH_SECRET"]);
  });
});

describe("the shared state (SHARED_STATE, REDIS_URL, SHARED_STATE_DEADLINE_MS)", () => {
  const postgres = { DATABASE_URL: "postgresql://u:p@db:5432/app" };

  it("chooses Redis when REDIS_URL is set, else PostgreSQL's own database, else memory (SQLite)", () => {
    expect(configFrom({}).sharedState).toEqual({ store: "memory", redisUrl: undefined, deadlineMs: 50 });
    expect(configFrom(postgres).sharedState.store).toBe("postgres");
    expect(configFrom({ ...postgres, REDIS_URL: "redis://127.0.0.1:6379" }).sharedState).toEqual({ store: "redis", redisUrl: "redis://127.0.0.1:6379", deadlineMs: 50 });
    expect(configFrom({ REDIS_URL: "redis://127.0.0.1:6379" }).sharedState.store).toBe("redis");
    expect(configFrom({ ...postgres, SHARED_STATE: "memory", REDIS_URL: "redis://127.0.0.1:6379" }).sharedState).toEqual({ store: "memory", redisUrl: undefined, deadlineMs: 50 });
    expect(configFrom({ ...postgres, SHARED_STATE: "postgres", SHARED_STATE_DEADLINE_MS: "20" }).sharedState).toEqual({ store: "postgres", redisUrl: undefined, deadlineMs: 20 });
  });

  it("refuses a store that cannot work here, each with its fix", () => {
    expect(problemText({ SHARED_STATE: "redis" })).toBe(
      "SHARED_STATE is redis, but REDIS_URL is not set: set REDIS_URL to your Redis (redis:// or rediss://), or unset SHARED_STATE",
    );
    expect(problemText({ SHARED_STATE: "postgres" })).toMatch(/^SHARED_STATE is postgres, but DATABASE_URL is SQLite/);
    expect(problemText({ SHARED_STATE: "shared" })).toBe("SHARED_STATE is malformed: must be memory, postgres or redis");
    expect(problemText({ ...postgres, REDIS_URL: "https://redis.example.com" })).toMatch(/^REDIS_URL is malformed: must be a redis:\/\/ or rediss:\/\/ \(TLS\) URL/);
    expect(problemText({ ...postgres, REDIS_URL: "redis://" })).toMatch(/^REDIS_URL is malformed/);
    for (const deadline of ["0", "4", "2001", "fast", "-1"]) expect(problemVariables({ SHARED_STATE_DEADLINE_MS: deadline })).toEqual(["SHARED_STATE_DEADLINE_MS"]);
  });
});

describe("Vercel (VERCEL=1)", () => {
  const secret = "s".repeat(40);
  const vercel = { VERCEL: "1", NODE_ENV: "production", DATABASE_URL: "postgresql://u:p@db:5432/app", SIGNING_KEYS: JSON.stringify([KEY]), AUTH_SECRET: secret };

  it("refuses to start without BASE_URL (no local mode on Vercel)", () => {
    expect(problemVariables(vercel)).toEqual(["BASE_URL"]);
    expect(problemText(vercel)).toMatch(/BASE_URL is required on Vercel \(VERCEL=1\): set it to the public https origin/);
  });

  it("derives BASE_URL from VERCEL_PROJECT_PRODUCTION_URL over https", () => {
    const config = configFrom({ ...vercel, VERCEL_PROJECT_PRODUCTION_URL: "gate-example.vercel.app" });
    expect(config.baseUrl).toBe("https://gate-example.vercel.app");
    expect(config.realm).toBe("gate-example.vercel.app");
    expect(config.production).toBe(true);
  });

  it("an explicit BASE_URL wins over VERCEL_PROJECT_PRODUCTION_URL", () => {
    expect(configFrom({ ...vercel, BASE_URL: "https://gate.example.com", VERCEL_PROJECT_PRODUCTION_URL: "x.vercel.app" }).baseUrl).toBe("https://gate.example.com");
  });

  it("a VERCEL_PROJECT_PRODUCTION_URL that is no host name is named as such", () => {
    expect(problemVariables({ ...vercel, VERCEL_PROJECT_PRODUCTION_URL: "gate.example.com/path" })).toEqual(["VERCEL_PROJECT_PRODUCTION_URL"]);
  });

  it("refuses an SQLite file database, also the default one", () => {
    const env = { ...vercel, BASE_URL: "https://gate.example.com" };
    expect(problemVariables({ ...env, DATABASE_URL: "file:/tmp/app.db" })).toEqual(["DATABASE_URL"]);
    const { DATABASE_URL: _unset, ...withoutDatabase } = env;
    expect(problemVariables(withoutDatabase)).toEqual(["DATABASE_URL"]);
    expect(problemText(withoutDatabase)).toMatch(/DATABASE_URL must be a postgresql:\/\/ URL on Vercel/);
  });

  it("TRUSTED_PROXY defaults to vercel there; any other value is refused", () => {
    const env = { ...vercel, BASE_URL: "https://gate.example.com" };
    expect(configFrom(env).trustedProxy).toEqual({ kind: "vercel" });
    expect(configFrom({ ...env, TRUSTED_PROXY: "vercel" }).trustedProxy).toEqual({ kind: "vercel" });
    for (const other of ["none", "1", "2"]) {
      expect(problemVariables({ ...env, TRUSTED_PROXY: other })).toEqual(["TRUSTED_PROXY"]);
      expect(problemText({ ...env, TRUSTED_PROXY: other })).toContain(`must be vercel on Vercel (VERCEL=1), not ${other}`);
    }
  });

  it("lists all three Vercel problems at once, with the production ones", () => {
    expect(problemVariables({ VERCEL: "1", NODE_ENV: "production", TRUSTED_PROXY: "none" })).toEqual(["BASE_URL", "DATABASE_URL", "TRUSTED_PROXY", "SIGNING_KEYS", "AUTH_SECRET"]);
    expect(problemText({ VERCEL: "1", NODE_ENV: "production" })).toContain("SIGNING_KEYS is required in production (NODE_ENV=production on Vercel)");
  });

  it("refuses SHARED_STATE=memory, naming the fix; the fleet's state is in PostgreSQL, or in Redis with REDIS_URL", () => {
    const env = { ...vercel, BASE_URL: "https://gate.example.com" };
    expect(problemVariables({ ...env, SHARED_STATE: "memory" })).toEqual(["SHARED_STATE"]);
    expect(problemText({ ...env, SHARED_STATE: "memory" })).toContain(
      "SHARED_STATE must not be memory on Vercel (VERCEL=1): each function instance would keep its own budgets and replay checks; unset SHARED_STATE (the PostgreSQL database holds them) or set REDIS_URL",
    );
    expect(configFrom(env).sharedState).toEqual({ store: "postgres", redisUrl: undefined, deadlineMs: 50 });
    expect(configFrom({ ...env, REDIS_URL: "rediss://default:secret@redis.example.com:6380" }).sharedState).toEqual({
      store: "redis",
      redisUrl: "rediss://default:secret@redis.example.com:6380",
      deadlineMs: 50,
    });
  });

  it("TRUSTED_PROXY keeps its local default none without VERCEL=1", () => {
    expect(configFrom({}).trustedProxy).toEqual({ kind: "none" });
  });
});

describe("an http BASE_URL in production", () => {
  const prod = { NODE_ENV: "production", AUTH_SECRET: "s".repeat(40), SIGNING_KEYS: JSON.stringify([KEY]) };

  it("is refused for a non-localhost host, naming the opt-out", () => {
    expect(problemVariables({ ...prod, BASE_URL: "http://192.168.1.20:3000" })).toEqual(["BASE_URL"]);
    expect(problemText({ ...prod, BASE_URL: "http://gate.example.com" })).toMatch(/BASE_URL must be https:\/\/ in production .*ALLOW_INSECURE_BASE_URL=1/);
  });

  it("starts with ALLOW_INSECURE_BASE_URL=1 (a trial on a private network)", () => {
    expect(configFrom({ ...prod, BASE_URL: "http://192.168.1.20:3000", ALLOW_INSECURE_BASE_URL: "1" }).baseUrl).toBe("http://192.168.1.20:3000");
    expect(problemVariables({ ...prod, BASE_URL: "http://192.168.1.20:3000", ALLOW_INSECURE_BASE_URL: "0" })).toEqual(["BASE_URL"]);
    expect(problemVariables({ ...prod, BASE_URL: "http://192.168.1.20:3000", ALLOW_INSECURE_BASE_URL: "yes" })).toEqual(["ALLOW_INSECURE_BASE_URL", "BASE_URL"]);
  });

  it("is fine on localhost and outside production", () => {
    expect(configFrom({ ...prod, BASE_URL: "http://localhost:3000" }).production).toBe(false);
    expect(configFrom({ BASE_URL: "http://gate.example.com" }).production).toBe(false);
  });
});

describe("SIGNING_KEYS", () => {
  const refused = (value: unknown): string => problemText({ SIGNING_KEYS: typeof value === "string" ? value : JSON.stringify(value) });

  it.each([
    ["an object instead of an array", { keys: [KEY] }],
    ["an empty array", []],
    ["a public key only", [{ kty: "OKP", crv: "Ed25519", x: KEY.x }]],
    ["another curve", [{ ...KEY, crv: "X25519" }]],
    ["a d of the wrong length", [{ ...KEY, d: KEY.d.slice(0, 42) + "AA" }]],
    ["an RSA key", [{ kty: "RSA", n: "x", e: "AQAB", d: "y" }]],
  ])("refuses %s", (_name, value) => {
    expect(refused(value)).toMatch(/^SIGNING_KEYS .*private Ed25519 JWKs/);
  });

  it("refuses an x that is not the public key of d", () => {
    expect(refused([{ ...KEY, x: KEY2.x }])).toMatch(/^SIGNING_KEYS key 1: x is not the public key of d/);
  });

  it("refuses the same key twice, with or without explicit kids", () => {
    expect(refused([KEY, KEY])).toMatch(/^SIGNING_KEYS holds the same key twice \(keys 1 and 2\)/);
    expect(
      refused([
        { ...KEY, kid: "a" },
        { ...KEY, kid: "b" },
      ]),
    ).toMatch(/same key twice/);
  });

  it("refuses two keys with the same explicit kid", () => {
    expect(
      refused([
        { ...KEY, kid: "k1" },
        { ...KEY2, kid: "k1" },
      ]),
    ).toMatch(/^SIGNING_KEYS gives keys 1 and 2 the same kid "k1"/);
  });

  it("accepts distinct keys with or without kid (absent: the RFC 7638 thumbprint)", () => {
    expect(configFrom({ SIGNING_KEYS: JSON.stringify([{ ...KEY, kid: "k1" }, KEY2]) }).signingKeys).toHaveLength(2);
    expect(configFrom({ SIGNING_KEYS: JSON.stringify([KEY, { ...KEY2, kid: "k2" }]) }).signingKeys).toHaveLength(2);
  });
});

describe("the loops', webhooks' and docs' settings (issue 33)", () => {
  it("have the defaults the code had: loops on, no private addresses, no after-response pass, 1, 1000 ms, 10 s, no CONTENT_DIR", () => {
    const config = configFrom({ WEBHOOK_DELIVERY: "" });
    expect(config).toMatchObject({ janitor: true, webhookDelivery: true, vercel: false, contentDir: undefined });
    expect(config.webhooks).toEqual({ allowPrivate: false, afterResponse: false, retryScale: 1, pollMs: 1000, timeoutSeconds: 10 });
  });

  it("accept the values the code acted on", () => {
    expect(configFrom({ JANITOR: "off", WEBHOOK_DELIVERY: "off" })).toMatchObject({ janitor: false, webhookDelivery: false });
    expect(configFrom({ JANITOR: "on", WEBHOOK_DELIVERY: "on" })).toMatchObject({ janitor: true, webhookDelivery: true });
    expect(configFrom({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_SECONDS: "0.3" }).webhooks).toEqual({
      allowPrivate: true,
      afterResponse: false,
      retryScale: 1,
      pollMs: 1000,
      timeoutSeconds: 0.3,
    });
    expect(configFrom({ CONTENT_DIR: "/srv/docs" }).contentDir).toBe("/srv/docs");
  });

  it.each([
    ["JANITOR", "of", "must be on or off"],
    ["WEBHOOK_DELIVERY", "false", "must be on or off"],
    ["WEBHOOK_ALLOW_PRIVATE", "yes", "must be 1 (allow http and private addresses for webhooks) or 0"],
    ["WEBHOOK_TIMEOUT_SECONDS", "-1", "must be a positive number of seconds"],
  ] as const)("a bad %s (%s) is one line at start, and the same ConfigError when built", (variable, value, detail) => {
    const line = `Invalid configuration: ${variable} ${detail}`;
    expect(() => configFrom({ [variable]: value })).toThrow(new ConfigError(variable, detail));
    let caught: unknown;
    try {
      configFrom({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect((caught as ConfigError).message).toBe(line);
  });

  it("a bad setting is listed with the other problems", () => {
    expect(problemVariables({ RELEASE_MODE: "staging", JANITOR: "no", WEBHOOK_TIMEOUT_SECONDS: "0" })).toEqual(["RELEASE_MODE", "JANITOR", "WEBHOOK_TIMEOUT_SECONDS"]);
  });
});

describe("the tests' options (command-line flags of npm start's server, issue 51)", () => {
  it("set what a test needs of a server's webhooks, and nothing else reads them", () => {
    const args = ["--test-webhook-retry-scale=0.02", "--test-webhook-poll-ms=50", "--test-webhook-after-response"];
    expect(configFrom({}, args).webhooks).toMatchObject({ afterResponse: true, retryScale: 0.02, pollMs: 50 });
    // Not environment variables (the configuration reference lists none of them): set as such, they are names no
    // setting knows, refused like a misspelt one.
    expect(() => configFrom({ WEBHOOK_RETRY_SCALE: "0.02" })).toThrow(/WEBHOOK_RETRY_SCALE is not a setting/);
    expect(() => configFrom({ WEBHOOK_AFTER_RESPONSE: "1" })).toThrow(/WEBHOOK_AFTER_RESPONSE is not a setting/);
    // Another program's arguments (Next's own CLI under a bare next start) are not ours.
    expect(configFrom({}, ["start", "-p", "3000", "--hostname=localhost"]).webhooks).toMatchObject({ afterResponse: false, retryScale: 1, pollMs: 1000 });
  });

  it("refuse an unknown or malformed flag, one line each, at start", () => {
    const checked = checkConfig({}, ["--test-webhook-retry-scale=fast", "--test-webhook-poll-ms=10", "--test-webhook-after-response=1", "--test-turns=off"]);
    expect(checked.ok).toBe(false);
    if (!checked.ok)
      expect(checked.problems.map(configProblemLine)).toEqual([
        "Invalid configuration: --test-webhook-retry-scale must be =<a positive number> (1: the documented retry schedule)",
        "Invalid configuration: --test-webhook-poll-ms must be =<milliseconds from 50>",
        "Invalid configuration: --test-webhook-after-response takes no value",
        "Invalid configuration: --test-turns is not a test option (--test-webhook-retry-scale, --test-webhook-poll-ms, --test-webhook-after-response)",
      ]);
  });

  it("are refused in production", () => {
    const production = { NODE_ENV: "production", BASE_URL: "https://gate.example.com", SIGNING_KEYS: JSON.stringify([KEY]), AUTH_SECRET: "a".repeat(32) };
    expect(checkConfig(production, []).ok).toBe(true);
    const checked = checkConfig(production, ["--test-webhook-retry-scale=0.02"]);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.map((problem) => problem.variable)).toEqual(["--test-webhook-retry-scale"]);
  });
});

describe("admission bounds (ADMISSION_*)", () => {
  it("defaults to the documented bounds", () => {
    expect(configFrom({}).admission).toEqual({
      lanes: {
        account: { inFlight: 64, queue: 1024 },
        token: { inFlight: 32, queue: 256 },
        pages: { inFlight: 8, queue: 64 },
        public: { inFlight: 16, queue: 128 },
        general: { inFlight: 32, queue: 256 },
      },
      queueWaitMs: 2000,
      heapShedShare: 0.8,
      callerShare: 0.25,
      bodyReaders: 256,
      bodyBufferBytes: 64 * 1024 * 1024,
      requestDeadlineMs: 10_000,
      minBytesPerSecond: 1024,
    });
  });

  it("takes each variable's override", () => {
    const { admission } = configFrom({
      ADMISSION_PUBLIC_IN_FLIGHT: "4",
      ADMISSION_PUBLIC_QUEUE: "0",
      ADMISSION_PAGES_QUEUE: "10",
      ADMISSION_QUEUE_WAIT_MS: "500",
      ADMISSION_HEAP_SHED_SHARE: "0.7",
    });
    expect(admission.lanes.public).toEqual({ inFlight: 4, queue: 0 });
    expect(admission.lanes.pages).toEqual({ inFlight: 8, queue: 10 });
    expect(admission.queueWaitMs).toBe(500);
    expect(admission.heapShedShare).toBe(0.7);
    const fairness = configFrom({
      ADMISSION_CALLER_SHARE: "0.5",
      ADMISSION_BODY_READERS: "32",
      ADMISSION_BODY_BUFFER_MIB: "8",
      REQUEST_DEADLINE_SECONDS: "5",
      REQUEST_MIN_BYTES_PER_SECOND: "0",
    }).admission;
    expect(fairness).toMatchObject({ callerShare: 0.5, bodyReaders: 32, bodyBufferBytes: 8 * 1024 * 1024, requestDeadlineMs: 5000, minBytesPerSecond: 0 });
    expect(configFrom({ ADMISSION_CALLER_SHARE: "1" }).admission.callerShare).toBe(1);
  });

  it("refuses a bound that is not a whole number in range, naming the variable", () => {
    for (const [variable, value] of [
      ["ADMISSION_ACCOUNT_IN_FLIGHT", "0"],
      ["ADMISSION_TOKEN_IN_FLIGHT", "-1"],
      ["ADMISSION_GENERAL_QUEUE", "1.5"],
      ["ADMISSION_PAGES_IN_FLIGHT", "many"],
      ["ADMISSION_QUEUE_WAIT_MS", "0"],
      ["ADMISSION_HEAP_SHED_SHARE", "0.99"],
      ["ADMISSION_HEAP_SHED_SHARE", "1"],
      ["ADMISSION_CALLER_SHARE", "0"],
      ["ADMISSION_CALLER_SHARE", "1.5"],
      ["ADMISSION_CALLER_SHARE", "half"],
      ["ADMISSION_BODY_READERS", "0"],
      ["REQUEST_DEADLINE_SECONDS", "0"],
      ["REQUEST_DEADLINE_SECONDS", "301"],
      ["REQUEST_MIN_BYTES_PER_SECOND", "-1"],
    ]) {
      const checked = checkConfig({ [variable!]: value });
      expect(checked.ok, `${variable}=${value}`).toBe(false);
      if (!checked.ok) expect(checked.problems.map((p) => p.variable)).toContain(variable);
    }
  });
});

describe("one frozen configuration (issue 43)", () => {
  it("holds where npm start listens: PORT (default 3000, 0 for any free port) and HOSTNAME (unset: every interface)", () => {
    expect(configFrom({})).toMatchObject({ port: 3000, hostname: undefined });
    expect(configFrom({ PORT: "3110", HOSTNAME: "127.0.0.1" })).toMatchObject({ port: 3110, hostname: "127.0.0.1" });
    expect(configFrom({ PORT: "0", HOSTNAME: "" })).toMatchObject({ port: 0, hostname: undefined });
    expect(() => configFrom({ PORT: "http" })).toThrow("Invalid configuration: PORT must be a TCP port number (0-65535)");
  });

  it("holds the operator settings, and refuses a malformed one with the other problems", () => {
    expect(configFrom({}).operations).toEqual({
      auditRetentionDays: 400,
      janitorIntervalSeconds: 300,
      cronSecret: undefined,
      metricsToken: undefined,
      logLevel: "info",
      databasePoolMax: 10,
      databaseStatementTimeoutMs: 10_000,
    });
    expect(configFrom({ LOG_LEVEL: "warn", METRICS_TOKEN: "metrics-token-0123456789", DATABASE_POOL_MAX: " 3 " }).operations).toMatchObject({
      logLevel: "warn",
      metricsToken: "metrics-token-0123456789",
      databasePoolMax: 3,
    });
    expect(problemVariables({ RELEASE_MODE: "staging", DATABASE_POOL_MAX: "many", LOG_LEVEL: "loud" })).toEqual(["RELEASE_MODE", "LOG_LEVEL", "DATABASE_POOL_MAX"]);
  });

  it("holds the RATE_LIMIT_* allowances that are set, an invalid one marked so (a start refuses it, lib/rate-limit)", () => {
    expect(configFrom({ RATE_LIMIT_MCP_PER_MINUTE: "5", RATE_LIMIT_ASK_PER_MINUTE: "lots", RATE_LIMIT_LOOKUPS_PER_MINUTE: "" }).rateLimitAllowances).toEqual({
      RATE_LIMIT_MCP_PER_MINUTE: 5,
      RATE_LIMIT_ASK_PER_MINUTE: "invalid",
    });
  });

  it("is frozen all the way down: no reader can change what the others read", () => {
    const config = configFrom({ SIGNING_KEYS: JSON.stringify([KEY]), TRUSTED_PROXY: "loopback" });
    for (const part of [
      config,
      config.admission,
      config.admission.lanes,
      config.admission.lanes.account,
      config.webhooks,
      config.operations,
      config.rateLimitAllowances,
      config.signingKeys,
      config.signingKeys?.[0],
      config.trustedProxy,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (config as { baseUrl: string }).baseUrl = "https://elsewhere.example";
    }).toThrow(TypeError);
  });

  it("is built from the variables given and nothing else (tests build theirs; the process's environment is not read)", () => {
    expect(configFrom({ BASE_URL: "https://gate.example.com" }).baseUrl).toBe("https://gate.example.com");
    // Vitest's process.env holds BASE_URL="/" (Vite's own), which is no valid BASE_URL: had it been read, this would throw.
    expect(configFrom({}).baseUrl).toBe("http://localhost:3000");
  });
});
