// Issue 51 items 2–4: one configuration reference generated from lib/config (docs/configuration.md), every name of the
// service's own families checked at start with the nearest known name, and the report `npm run config` prints.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkConfig, ConfigError, configFrom } from "@/lib/config";
import { variableMeta } from "@/lib/config/describe";
import { editDistance, nearestName, SETTING_PREFIXES } from "@/lib/config/names";
import { SETTING_SCHEMAS } from "@/lib/config/schema";
import { BUDGETS, budgetEnvironmentProblems } from "@/lib/rate-limit";
import { preflight, startProblemLine } from "@/lib/startup/preflight";
import { configurationReferenceMarkdown, deploymentTableMarkdown } from "@/lib/startup/reference";
import { configurationReport, withoutPassword } from "@/lib/startup/report";
import { allSettings } from "@/lib/startup/settings";
import { ROOT } from "../support/databases";

const SCHEMA_NAMES = SETTING_SCHEMAS.flatMap((schema) => Object.keys(schema.shape));
const BUDGET_NAMES = Object.values(BUDGETS).map((budget) => budget.env);
const REFERENCE = fs.readFileSync(path.join(ROOT, "docs", "configuration.md"), "utf8");
const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const UNREACHABLE_PG = "postgresql://nobody:nothing@127.0.0.1:1/none";

describe("docs/configuration.md, generated from lib/config", () => {
  it("is exactly what `npm run -s docs:config` writes from the schemas and the budget table (run it after editing a description)", () => {
    expect(REFERENCE).toBe(configurationReferenceMarkdown());
  });

  it("has a row, a default and a meaning for every variable the schemas read and every budget's variable", () => {
    for (const schema of SETTING_SCHEMAS)
      for (const [name, entry] of Object.entries(schema.shape)) expect(variableMeta.get(entry as z.ZodType)?.description, name).toMatch(/\S{3}/);
    const settingsPart = REFERENCE.slice(0, REFERENCE.indexOf("## Read by the commands"));
    const rows = new Map([...settingsPart.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \| (.+) \|$/gm)].map((m) => [m[1]!, { default: m[2]!, meaning: m[3]! }]));
    expect([...rows.keys()].sort()).toEqual([...SCHEMA_NAMES, ...BUDGET_NAMES].sort());
    for (const [name, row] of rows) {
      expect(row.default.trim(), name).not.toBe("");
      expect(row.meaning.length, name).toBeGreaterThan(20);
    }
  });

  it("follows the schema: a variable that leaves the schema leaves the reference", () => {
    const without = allSettings().filter((setting) => setting.name !== "WEBHOOK_TIMEOUT_SECONDS");
    expect(configurationReferenceMarkdown(without)).not.toContain("WEBHOOK_TIMEOUT_SECONDS");
    expect(configurationReferenceMarkdown()).toContain("| `WEBHOOK_TIMEOUT_SECONDS` | `10` |");
  });

  it("README's short table is the schema's deployment entries, about ten, and links the full reference", () => {
    const table = deploymentTableMarkdown();
    expect(README).toContain(table);
    const count = table.split("\n").length - 2;
    expect(count).toBeGreaterThanOrEqual(8);
    expect(count).toBeLessThanOrEqual(12);
    expect(README).toContain("(docs/configuration.md)");
  });
});

describe("every name checked (a misspelt setting never starts with its default)", () => {
  it("refuses an unknown name of the schemas' families at the configuration's first read, with the name meant", () => {
    const env = { ADMISSION_PUBLIC_QUEU: "3", WEBHOOK_TIMEOUT_SECOND: "5", TRUSTED_PROXIES: "loopback" };
    expect(() => configFrom(env)).toThrow(ConfigError);
    const checked = checkConfig(env);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems.map((p) => `${p.variable} ${p.detail}`)).toEqual([
      "ADMISSION_PUBLIC_QUEU is not a setting; did you mean ADMISSION_PUBLIC_QUEUE?",
      "TRUSTED_PROXIES is not a setting; did you mean TRUSTED_PROXY?",
      "WEBHOOK_TIMEOUT_SECOND is not a setting; did you mean WEBHOOK_TIMEOUT_SECONDS?",
    ]);
  });

  it("refuses an unknown RATE_LIMIT_* name with the budget table's nearest (the issue's own example)", () => {
    expect(budgetEnvironmentProblems({ RATE_LIMIT_ASK_PER_MINUT: "5" })).toEqual([
      { variable: "RATE_LIMIT_ASK_PER_MINUT", detail: "is not a setting; did you mean RATE_LIMIT_ASK_PER_MINUTE?" },
    ]);
    expect(budgetEnvironmentProblems({ RATE_LIMIT_ASK_PER_MINUTE: "5", RATE_LIMIT_MCP_PER_MINUTE: "" })).toEqual([]);
  });

  it("names no suggestion for a name far from every setting, and says where the settings are listed", () => {
    const checked = checkConfig({ AUTH_URL: "https://x.example" });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems[0]).toEqual({ variable: "AUTH_URL", detail: expect.stringMatching(/^is not a setting: remove it \(docs\/configuration\.md/) });
  });

  it("never refuses the platform's, the tools' or OpenTelemetry's variables, a blank one, or a provider's database URLs", () => {
    const env = {
      NODE_OPTIONS: "--enable-source-maps",
      NEXT_TELEMETRY_DISABLED: "1",
      NEXTAUTH_URL: "http://localhost:3000",
      VERCEL_ENV: "production",
      VERCEL_URL: "x.vercel.app",
      npm_lifecycle_event: "start",
      OTEL_EXPORTER_OTLP_HEADERS: "x=1",
      OTEL_TRACES_SAMPLER: "always_on",
      AGENT_NAME: "Azure Pipelines 2",
      AGENT_OS: "Linux",
      DATABASE_URL_UNPOOLED: "postgresql://u@h/d",
      DATABASE_PUBLIC_URL: "postgresql://u@h/d",
      POSTGRES_URL_NON_POOLING: "postgresql://u@h/d",
      TEST_DATABASE: "postgres",
      ADMISSION_PUBLIC_QUEU: "",
      HOSTNAME: "build-host",
      MALLOC_ARENA_MAX: "2",
    };
    expect(checkConfig(env).ok).toBe(true);
    expect(budgetEnvironmentProblems(env)).toEqual([]);
  });

  it("each family of the one list holds at least one setting, and every setting named by a family is known", () => {
    const known = [...SCHEMA_NAMES, ...BUDGET_NAMES];
    for (const prefix of SETTING_PREFIXES)
      expect(
        known.some((name) => name.startsWith(prefix)),
        prefix,
      ).toBe(true);
    expect(SETTING_PREFIXES.some((prefix) => "OTEL_EXPORTER_OTLP_ENDPOINT".startsWith(prefix))).toBe(false);
  });

  it("suggests by edit distance (a swap of two letters is one edit), only when near enough", () => {
    expect(editDistance("RATE_LIMIT_ASK_PER_MINUT", "RATE_LIMIT_ASK_PER_MINUTE")).toBe(1);
    expect(editDistance("JANITRO", "JANITOR")).toBe(1);
    expect(nearestName("SIGNING_KEY", SCHEMA_NAMES)).toBe("SIGNING_KEYS");
    expect(nearestName("AUTH_URL", SCHEMA_NAMES)).toBeUndefined();
  });

  it("the start (preflight) lists both kinds at once, in its own lines", async () => {
    const { problems } = await preflight({ env: { DATABASE_URL: UNREACHABLE_PG, RATE_LIMIT_ASK_PER_MINUT: "5", JANITOR_INTERVAL_SECOND: "60" }, log: () => undefined });
    expect(problems.map(startProblemLine)).toEqual([
      "Invalid configuration: JANITOR_INTERVAL_SECOND is not a setting; did you mean JANITOR_INTERVAL_SECONDS?",
      "Invalid configuration: RATE_LIMIT_ASK_PER_MINUT is not a setting; did you mean RATE_LIMIT_ASK_PER_MINUTE?",
    ]);
  });
});

describe("the effective configuration (npm run config)", () => {
  const key = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
  const secret = "a-session-secret-of-more-than-32-characters";
  const production = { BASE_URL: "https://gate.example.com", SIGNING_KEYS: JSON.stringify([key]), AUTH_SECRET: secret, DATABASE_URL: UNREACHABLE_PG };

  it("shows each value with its source, and secrets only as set or unset", async () => {
    const report = await configurationReport({ ...production, METRICS_TOKEN: "a-metrics-token-of-16+", ADMISSION_PUBLIC_QUEUE: "7" });
    const row = (name: string) => report.rows.find((r) => r.name === name);
    expect(report.problems).toEqual([]);
    expect(row("BASE_URL")).toMatchObject({ value: "https://gate.example.com", source: "environment" });
    expect(row("ADMISSION_PUBLIC_QUEUE")).toMatchObject({ value: "7", source: "environment" });
    expect(row("ADMISSION_PUBLIC_IN_FLIGHT")).toMatchObject({ value: "16", source: "default" });
    expect(row("RATE_LIMIT_ASK_PER_MINUTE")).toMatchObject({ value: "unset", source: "default: 600 per minute" });
    expect(row("SIGNING_KEYS")).toMatchObject({ value: "set", source: "environment" });
    expect(row("AUTH_SECRET")).toMatchObject({ value: "set", source: "environment" });
    expect(row("METRICS_TOKEN")).toMatchObject({ value: "set", source: "environment" });
    expect(row("CRON_SECRET")).toMatchObject({ value: "unset" });
    expect(row("DATABASE_URL")).toMatchObject({ value: "postgresql://nobody:****@127.0.0.1:1/none", source: "environment" });
    const printed = JSON.stringify(report);
    for (const hidden of [secret, key.d, "a-metrics-token-of-16+", "nothing@"]) expect(printed).not.toContain(hidden);
    expect(report.rows.map((r) => r.name).sort()).toEqual([...SCHEMA_NAMES, ...BUDGET_NAMES].sort());
  });

  it("derives what the start derives: BASE_URL and TRUSTED_PROXY on Vercel", async () => {
    const report = await configurationReport({ ...production, BASE_URL: "", VERCEL: "1", VERCEL_PROJECT_PRODUCTION_URL: "gate.example.com" });
    expect(report.problems).toEqual([]);
    expect(report.rows.find((r) => r.name === "BASE_URL")).toMatchObject({ value: "https://gate.example.com", source: "default, from VERCEL_PROJECT_PRODUCTION_URL" });
    expect(report.rows.find((r) => r.name === "TRUSTED_PROXY")).toMatchObject({ value: "vercel", source: "default under VERCEL=1" });
  });

  it("lists the problems a production start would refuse, and migrates nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-config-"));
    fs.symlinkSync(path.join(ROOT, "prisma"), path.join(dir, "prisma"));
    try {
      const report = await configurationReport({ BASE_URL: "https://gate.example.com", RATE_LIMIT_ASK_PER_MINUT: "5" }, dir);
      expect(report.problems.map(startProblemLine)).toEqual([
        "Invalid configuration: SIGNING_KEYS is required in production (NODE_ENV=production with a non-localhost BASE_URL): set it to a JSON array of private Ed25519 JWKs (npm run -s keys:new prints one)",
        expect.stringMatching(/^Invalid configuration: AUTH_SECRET is required in production/),
        "Invalid configuration: RATE_LIMIT_ASK_PER_MINUT is not a setting; did you mean RATE_LIMIT_ASK_PER_MINUTE?",
      ]);
      expect(fs.existsSync(path.join(dir, "data", "app.db"))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hides a URL's password, whatever the URL", () => {
    expect(withoutPassword("postgresql://u:p@h:5432/d?sslmode=require")).toBe("postgresql://u:****@h:5432/d?sslmode=require");
    expect(withoutPassword("file:./data/app.db")).toBe("file:./data/app.db");
    expect(withoutPassword("http://collector:4318")).toBe("http://collector:4318");
  });
});
