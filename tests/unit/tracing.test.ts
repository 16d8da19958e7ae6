// Issue 43 item 3: OpenTelemetry's standard variables (lib/config/tracing.ts, checked at start by preflight) and the
// caller's W3C trace context, read by @opentelemetry/core's propagator (issue 51): a malformed traceparent starts a new
// trace, it never fails a request.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tracingFrom, tracingProblems } from "@/lib/config/tracing";
import { preflight, startProblemLine } from "@/lib/startup/preflight";
import { ROOT } from "../support/databases";
import { context, trace, type SpanContext } from "@opentelemetry/api";
import { getConfig } from "@/lib/config";
import { withCallerTrace } from "@/lib/tracing";
import { startTracing } from "@/lib/tracing/sdk";
import { useTestConfig } from "../support/config";

describe("the tracing variables", () => {
  it("are off unless an OTLP endpoint is set", () => {
    expect(tracingFrom({})).toEqual({ enabled: false });
    expect(tracingFrom({ OTEL_SERVICE_NAME: "gate", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toEqual({ enabled: false });
  });

  it("post to {endpoint}/v1/traces, or to the traces endpoint as given, by default as protobuf", () => {
    expect(tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      enabled: true,
      tracesUrl: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "agent-gate",
      exportDelayMs: 5000,
    });
    const both = tracingFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/otlp/spans",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "gate-eu",
      OTEL_BSP_SCHEDULE_DELAY: "250",
    });
    expect(both).toEqual({ enabled: true, tracesUrl: "https://traces.example.com/otlp/spans", protocol: "http/json", serviceName: "gate-eu", exportDelayMs: 250 });
  });

  it("name each malformed one at start", () => {
    expect(tracingProblems({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toEqual([]);
    const problems = tracingProblems({
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://collector/v1/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_BSP_SCHEDULE_DELAY: "soon",
    });
    expect(problems.map((p) => p.variable).sort()).toEqual([
      "OTEL_BSP_SCHEDULE_DELAY",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]);
    expect(problems.find((p) => p.variable === "OTEL_EXPORTER_OTLP_PROTOCOL")?.detail).toContain("http/protobuf or http/json");
  });

  it("a start refuses a malformed one, naming it (lib/startup/preflight.ts)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-tracing-"));
    fs.symlinkSync(path.join(ROOT, "prisma"), path.join(dir, "prisma"));
    try {
      const migrated: string[] = [];
      const result = await preflight({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
        projectDir: dir,
        migrate: async (url) => void migrated.push(url),
        log: () => undefined,
      });
      expect(result.config).toBeUndefined();
      expect(result.problems.map(startProblemLine)).toContainEqual(expect.stringContaining("OTEL_EXPORTER_OTLP_ENDPOINT"));
      expect(migrated).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a caller's W3C trace context (@opentelemetry/core's propagator, registered by lib/tracing/sdk.ts)", () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const spanId = "00f067aa0ba902b7";

  /** The span context withCallerTrace runs `run` under, with traces on and the SDK started as instrumentation.ts does. */
  async function callerContext(traceparent: unknown, tracestate?: unknown): Promise<SpanContext | undefined> {
    useTestConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    const config = getConfig().tracing;
    if (!config.enabled) throw new Error("traces are off");
    await startTracing(config, () => ({ route: "/x", workClass: null }));
    return withCallerTrace(traceparent, tracestate, async () => trace.getSpanContext(context.active()));
  }

  it("reads a traceparent (and its tracestate) as the caller's remote span", async () => {
    const parsed = await callerContext(`00-${traceId}-${spanId}-01`, "vendor=opaque,other=1");
    expect(parsed).toMatchObject({ traceId, spanId, traceFlags: 1, isRemote: true });
    expect(parsed?.traceState?.get("vendor")).toBe("opaque");
    expect(await callerContext(`00-${traceId}-${spanId}-00`)).toMatchObject({ traceFlags: 0 });
    // A later version may append fields: its first four are read.
    expect(await callerContext(`01-${traceId}-${spanId}-01-what-comes-next`)).toMatchObject({ traceId, spanId });
  });

  it("ignores a malformed one, or one of another type (a new trace starts)", async () => {
    for (const bad of [
      undefined,
      null,
      42,
      { traceparent: `00-${traceId}-${spanId}-01` },
      "",
      "garbage",
      `00-${traceId.toUpperCase()}-${spanId}-01`,
      `00-${"0".repeat(32)}-${spanId}-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `ff-${traceId}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${traceId.slice(1)}-${spanId}-01`,
      `00-${traceId}-${spanId}-1`,
      "x".repeat(10_000),
    ]) {
      expect(await callerContext(bad), String(bad).slice(0, 40)).toBeUndefined();
    }
  });
});
