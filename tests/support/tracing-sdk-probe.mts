// Run by tests/unit/db/tracing-off.test.ts in a process of its own: runs instrumentation.ts register() as Next does
// (NEXT_RUNTIME=nodejs) and prints how many modules of the OpenTelemetry SDKs (traces, metrics), their exporters or
// @opentelemetry/core (the W3C propagator lib/tracing/sdk.ts registers) were resolved meanwhile, and which
// (node:module's resolve hook sees every import, static or dynamic).
import { registerHooks } from "node:module";
import path from "node:path";

const sdkModules: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (/@opentelemetry\/(sdk-trace|sdk-metrics|exporter-trace|exporter-metrics|context-async-hooks|resources|core)|lib\/tracing\/(sdk|metrics-sdk)/.test(resolved.url))
      sdkModules.push(resolved.url);
    return resolved;
  },
});
const { register } = (await import(path.join(process.cwd(), "instrumentation.ts"))) as { register: () => Promise<void> };
await register();
process.stdout.write(JSON.stringify({ sdkModules: sdkModules.length, metricsSdk: sdkModules.some((url) => /sdk-metrics|exporter-metrics|metrics-sdk/.test(url)) }));
