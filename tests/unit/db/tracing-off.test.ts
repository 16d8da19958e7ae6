// Issue 43 item 3: with no OTLP endpoint configured, instrumentation.ts register() loads nothing of the OpenTelemetry
// SDK or its exporters (lib/tracing/sdk.ts is imported only when traces are on); with one, it does (the control).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../support/databases";

const ROOT = path.resolve(__dirname, "../../..");
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await freshDatabase("tracing-off");
}, 60_000);

/** How many SDK modules register() loaded (and whether the metrics SDK among them), with `env` added to the child's environment. */
function sdkModulesLoaded(env: Record<string, string>): { sdkModules: number; metricsSdk: boolean } {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "tests/support/tracing-sdk-probe.mts")], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "development", NEXT_RUNTIME: "nodejs", DATABASE_URL: databaseUrl, ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { sdkModules: number; metricsSdk: boolean };
}

describe("traces off", () => {
  it("loads no SDK or exporter module when no OTLP endpoint is set, and loads them when one is", { timeout: 120_000 }, () => {
    expect(sdkModulesLoaded({})).toEqual({ sdkModules: 0, metricsSdk: false });
    const on = sdkModulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    expect(on.sdkModules).toBeGreaterThan(0);
    // Issue 50 item 5: the metrics SDK too, and only then.
    expect(on.metricsSdk).toBe(true);
    expect(sdkModulesLoaded({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://127.0.0.1:9/v1/metrics" })).toMatchObject({ metricsSdk: true });
  });
});
