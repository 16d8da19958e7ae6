// A real webhook receiver for tests: a node:http server on 127.0.0.1 that verifies every request's signature
// with the svix package's verifier (independent of our signing code) and validates the payload against the
// published JSON Schema of its event type. The test decides each answer (status, delay, or no answer).
import http from "node:http";
import type { AddressInfo } from "node:net";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { Webhook } from "svix";
import { isWebhookEventType } from "@/lib/webhooks/schemas";
import { webhookJsonSchema, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks";

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  receivedAt: number;
  /** Which of the receiver's secrets verified it (indexes into `secrets`). */
  verifiedBy: number[];
}

/** An HTTP answer, no answer at all ("hang"), or the connection dropped without an answer ("drop"). */
export type Answer = { status: number; body?: string; delayMs?: number } | "hang" | "drop";

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map(WEBHOOK_EVENT_TYPES.map((type) => [type, ajv.compile(webhookJsonSchema(type))]));

/** Validates a payload against its type's published JSON Schema; throws with the errors. */
export function assertValidPayload(payload: unknown): void {
  const type = (payload as { type?: unknown })?.type;
  if (typeof type !== "string" || !isWebhookEventType(type)) throw new Error(`unknown event type ${String(type)}`);
  const validate = validators.get(type);
  if (!validate || !validate(payload)) throw new Error(`payload does not match the ${type} schema: ${ajv.errorsText(validate?.errors)}`);
}

export interface Receiver {
  url: string;
  port: number;
  secrets: string[];
  /** Every verified request, in arrival order. */
  received: ReceivedWebhook[];
  /** Requests whose signature no secret verified, or whose payload broke its schema. */
  rejected: string[];
  answer: (request: ReceivedWebhook, index: number) => Answer;
  /** Resolves once `count` verified requests matched the predicate. */
  waitFor(predicate: (r: ReceivedWebhook) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const sockets = new Set<import("node:net").Socket>();
  const receiver: Receiver = {
    url: "",
    port: 0,
    secrets: [],
    received: [],
    rejected: [],
    answer: () => ({ status: 204 }),
    async waitFor(predicate, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matches = receiver.received.filter(predicate);
        if (matches.length >= count) return matches;
        if (Date.now() > deadline)
          throw new Error(
            `waited ${timeoutMs} ms for ${count} webhook(s); got ${matches.length} (all: ${receiver.received.map((r) => r.payload.type).join(", ")}; rejected: ${receiver.rejected.join("; ")})`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const headers = {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      };
      const verifiedBy: number[] = [];
      receiver.secrets.forEach((secret, index) => {
        try {
          new Webhook(secret).verify(body, headers);
          verifiedBy.push(index);
        } catch {
          // not signed with this secret
        }
      });
      let payload: ReceivedWebhook["payload"];
      try {
        payload = JSON.parse(body) as ReceivedWebhook["payload"];
        assertValidPayload(payload);
      } catch (error) {
        receiver.rejected.push(`schema: ${(error as Error).message}`);
        res.writeHead(400).end();
        return;
      }
      if (verifiedBy.length === 0) {
        receiver.rejected.push(`signature: ${headers["webhook-id"]}`);
        res.writeHead(401).end();
        return;
      }
      const record: ReceivedWebhook = {
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
        body,
        payload,
        receivedAt: Date.now(),
        verifiedBy,
      };
      const answer = receiver.answer(record, receiver.received.length);
      receiver.received.push(record);
      if (answer === "hang") return;
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      setTimeout(() => res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? ""), answer.delayMs ?? 0);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}
