// Baseline for A2A 1.0 SendMessage get_community_stats: a bare @a2a-js/sdk 1.x server on node:http, put together
// as the SDK's own JSON-RPC handler does without express (validateVersion, JsonRpcTransportHandler,
// DefaultRequestHandler per server, the SDK's InMemoryTaskStore), with an executor that publishes the same events
// as the service's (task, artifact with the output as a data part, completed) and reads the same cached member
// count through better-sqlite3 directly. It keeps tasks in memory: the service's database task store (every task
// readable on every instance for 24 hours) is part of what the ratio measures. Env: PORT, DATABASE_URL, BASE_URL.
import { randomUUID } from "node:crypto";
import http from "node:http";
import Database from "better-sqlite3";
import { AgentCard, Role, TaskState, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  validateVersion,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";

const port = Number(process.env.PORT);
const base = process.env.BASE_URL ?? "";
const file = (process.env.DATABASE_URL ?? "").replace(/^file:/, "");
const db = new Database(file, { readonly: true, fileMustExist: true });

const cachedCount = db.prepare<[], { value: number; computedAt: number | string }>(`SELECT value, computedAt FROM CachedStat WHERE name = 'member_count'`);
const memberCount = db.prepare<[], { count: number }>(`SELECT COUNT(*) AS count FROM Member`);

function communityStats(): Record<string, unknown> {
  const row = cachedCount.get();
  const count = row ? Number(row.value) : memberCount.get()!.count;
  const asOf = row ? new Date(typeof row.computedAt === "number" ? row.computedAt : Date.parse(row.computedAt)) : new Date();
  return { member_count: count, as_of: asOf.toISOString(), cache_max_age_seconds: 1200 };
}

const card = AgentCard.fromJSON({
  name: "baseline",
  description: "Bare A2A SDK server with get_community_stats.",
  version: "1.0.0",
  supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ["application/json"],
  defaultOutputModes: ["application/json"],
  skills: [{ id: "get_community_stats", name: "Community stats", description: "Member count.", tags: ["community"] }],
});

const text = (value: string): Part => ({ content: { $case: "text", value }, mediaType: "text/plain", filename: "", metadata: undefined });

class StatsExecutor implements AgentExecutor {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const now = () => new Date().toISOString();
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [userMessage],
        metadata: { skill: "get_community_stats" },
      }),
    );
    const output = communityStats();
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: "get_community_stats result",
          description: "",
          parts: [{ content: { $case: "data", value: output }, mediaType: "application/json", filename: "", metadata: undefined }],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    const message = {
      role: Role.ROLE_AGENT,
      messageId: randomUUID(),
      parts: [text(JSON.stringify(output))],
      taskId,
      contextId,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message, timestamp: now() }, metadata: undefined }));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), new StatsExecutor()));

const httpServer = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
      const version = req.headers["a2a-version"];
      const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: typeof version === "string" ? version : undefined });
      validateVersion(context.requestedVersion, card, "JSONRPC");
      const answer = await transport.handle(body, context);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
});

httpServer.listen(port, "127.0.0.1", () => console.log(`baseline a2a listening on ${port}`));
// A normal exit on SIGTERM, so that a `--cpu-prof` profile of this baseline is written (bench --cpu-prof).
process.on("SIGTERM", () => process.exit(0));
