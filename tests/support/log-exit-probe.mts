// Run by tests/unit/observation-cost.test.ts in a process of its own: writes request lines to the process's stdout
// through the shared logger and exits at once, before its asynchronous destination has had a turn to write them.
import { logger, requestLog } from "../../lib/observability/log";

const count = Number(process.argv[2]);
for (let i = 0; i < count; i++) requestLog({ method: "GET", route: "/ask", status: 200, durationMs: 1, requestId: `r${i}`, clientIp: "127.0.0.1" });
logger().info({ type: "last" }, "last");
process.exit(0);
