import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/config/schema";

const KEY = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };

describe("parseConfig", () => {
  it("has the local defaults of CONTRACT.md §1", () => {
    const config = parseConfig({});
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

  it("derives the realm from BASE_URL's host name without port and drops a trailing slash", () => {
    const config = parseConfig({ BASE_URL: "https://gate.example.com:8443/" });
    expect(config.baseUrl).toBe("https://gate.example.com:8443");
    expect(config.realm).toBe("gate.example.com");
  });

  it("recognizes PostgreSQL URLs", () => {
    expect(parseConfig({ DATABASE_URL: "postgresql://u:p@db:5432/app" }).databaseProvider).toBe("postgresql");
    expect(parseConfig({ DATABASE_URL: "postgres://u:p@db:5432/app" }).databaseProvider).toBe("postgresql");
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
    ["AUTH_SECRET", "short"],
    ["SIGNING_KEYS", "not json"],
    ["SIGNING_KEYS", "[]"],
    ["SIGNING_KEYS", JSON.stringify([{ kty: "RSA", n: "x", e: "AQAB" }])],
  ])("a bad %s (%s) throws a ConfigError naming it", (variable, value) => {
    let caught: unknown;
    try {
      parseConfig({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
    expect((caught as ConfigError).message).not.toContain("\n");
  });

  it("parses trusted proxy policies", () => {
    expect(parseConfig({ TRUSTED_PROXY: "vercel" }).trustedProxy).toEqual({ kind: "vercel" });
    expect(parseConfig({ TRUSTED_PROXY: "2" }).trustedProxy).toEqual({ kind: "hops", hops: 2 });
  });

  it("accepts SIGNING_KEYS as an array of private Ed25519 JWKs", () => {
    expect(parseConfig({ SIGNING_KEYS: JSON.stringify([KEY, KEY]) }).signingKeys).toHaveLength(2);
  });

  describe("production (NODE_ENV=production and a non-localhost BASE_URL)", () => {
    const prod = { NODE_ENV: "production", BASE_URL: "https://gate.example.com" };
    const secret = "s".repeat(40);
    it("refuses to start without SIGNING_KEYS", () => {
      expect(() => parseConfig({ ...prod, AUTH_SECRET: secret })).toThrow(/SIGNING_KEYS is required in production/);
    });
    it("refuses to start without AUTH_SECRET", () => {
      expect(() => parseConfig({ ...prod, SIGNING_KEYS: JSON.stringify([KEY]) })).toThrow(/AUTH_SECRET is required in production/);
    });
    it("starts with both", () => {
      expect(parseConfig({ ...prod, AUTH_SECRET: secret, SIGNING_KEYS: JSON.stringify([KEY]) }).production).toBe(true);
    });
    it("is not production on localhost", () => {
      expect(parseConfig({ NODE_ENV: "production", BASE_URL: "http://localhost:4000" }).production).toBe(false);
    });
  });

  it("never throws anything but ConfigError, whatever the environment (property)", () => {
    const variables = ["BASE_URL", "DATABASE_URL", "RELEASE_MODE", "SIGNING_KEYS", "AUTH_SECRET", "TRUSTED_PROXY", "NODE_ENV"];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...variables), fc.oneof(fc.string(), fc.webUrl(), fc.json())), (env) => {
        try {
          const config = parseConfig(env);
          expect(config.baseUrl).toMatch(/^https?:\/\//);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
