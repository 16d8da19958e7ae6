// `npm run config` (issue 51): the configuration a start would run with, each value with its source, secrets only
// "set" or "unset", and the problems the start would refuse (the same preflight, changing nothing).
import { VARIABLE_GROUPS } from "@/lib/config/describe";
import { preflight, type StartProblem } from "./preflight";
import { allSettings, type Setting } from "./settings";

type Variables = Readonly<Record<string, string | undefined>>;

export interface ReportRow {
  name: string;
  group: Setting["group"];
  /** What is shown: the value, "set"/"unset" for a secret, a URL without its password. */
  value: string;
  /** "environment", "default", or how the value was derived. */
  source: string;
}

export interface ConfigurationReport {
  rows: ReportRow[];
  problems: StartProblem[];
  /** What the start would say that is no problem (the embedded database to be migrated, a database it cannot ask). */
  news: string[];
}

/** A URL with its password replaced, so credentials never show. */
export function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password === "") return value;
    url.password = "****";
    return url.toString();
  } catch {
    return value.replace(/\/\/([^/@:]*):[^/@]*@/, "//$1:****@");
  }
}

/** The one value of a default written as a literal (`on`), else undefined (a default described in words). */
function literalDefault(text: string | undefined): string | undefined {
  const literal = text === undefined ? undefined : /^`([^`]*)`$/.exec(text);
  return literal?.[1];
}

const plain = (markdown: string): string => markdown.replaceAll("`", "");

function rowOf(setting: Setting, env: Variables): ReportRow {
  const raw = env[setting.name]?.trim();
  const row = { name: setting.name, group: setting.group };
  if (raw !== undefined && raw !== "") {
    const value = setting.show === "secret" ? "set" : setting.show === "url" ? withoutPassword(raw) : raw;
    return { ...row, value, source: "environment" };
  }
  if (setting.show === "secret") return { ...row, value: "unset", source: setting.defaultText ? `default: ${plain(setting.defaultText)}` : "default" };
  const literal = literalDefault(setting.defaultText);
  if (literal !== undefined) return { ...row, value: literal, source: "default" };
  return { ...row, value: "unset", source: setting.defaultText ? `default: ${plain(setting.defaultText)}` : "default" };
}

/** The values the start derives rather than reads: BASE_URL and TRUSTED_PROXY on Vercel and from PORT. */
function derived(row: ReportRow, env: Variables, baseUrl: string | undefined): ReportRow {
  if (row.source !== "environment" && row.name === "BASE_URL" && baseUrl !== undefined) {
    const from = env.VERCEL === "1" ? "VERCEL_PROJECT_PRODUCTION_URL" : env.PORT ? "PORT" : undefined;
    return { ...row, value: baseUrl, source: from ? `default, from ${from}` : "default" };
  }
  if (row.source !== "environment" && row.name === "TRUSTED_PROXY" && env.VERCEL === "1") return { ...row, value: "vercel", source: "default under VERCEL=1" };
  return row;
}

/**
 * The report for `env` as a production start reads it (npm start and `next start` both set NODE_ENV=production; on
 * Vercel, where no server.ts runs, as a bare `next start`). Nothing is migrated or written.
 */
export async function configurationReport(env: Variables, projectDir?: string): Promise<ConfigurationReport> {
  const started: Variables = { ...env, NODE_ENV: "production" };
  const news: string[] = [];
  const { config, problems } = await preflight({ env: started, projectDir, readOnly: true, serverEntry: env.VERCEL !== "1", log: (line) => news.push(line) });
  const rows = allSettings().map((setting) => derived(rowOf(setting, started), started, config?.baseUrl));
  const nodeEnv = rows.find((row) => row.name === "NODE_ENV");
  if (nodeEnv) Object.assign(nodeEnv, { value: "production", source: "set by npm start and next start" });
  return { rows, problems, news };
}

/** The group titles of the printed report, in order. */
export const REPORT_GROUPS: Record<Setting["group"], string> = { ...VARIABLE_GROUPS, rateLimits: "Rate limits" };
