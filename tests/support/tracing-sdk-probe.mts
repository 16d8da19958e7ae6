// Run by tests/unit/db/tracing-off.test.ts in a process of its own: runs instrumentation.ts register() as Next does
// (NEXT_RUNTIME=nodejs) and prints how many modules of the OpenTelemetry SDK, its exporters or @opentelemetry/core (the
// W3C propagator lib/tracing/sdk.ts registers) were resolved meanwhile
// (node:module's resolve hook sees every import, static or dynamic).
import { registerHooks } from "node:module";
import path from "node:path";

const sdkModules: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (/@opentelemetry\/(sdk-trace|exporter-trace|context-async-hooks|resources|core)|lib\/tracing\/sdk/.test(resolved.url)) sdkModules.push(resolved.url);
    return resolved;
  },
});
const { register } = (await import(path.join(process.cwd(), "instrumentation.ts"))) as { register: () => Promise<void> };
await register();
process.stdout.write(JSON.stringify({ sdkModules: sdkModules.length }));
