// /a2a against `next start`: the A2A 0.3.x SDK client sends each skill and reads the task back; raw
// JSON-RPC covers every error path; the agent card is served at both well-known paths.
import { randomUUID } from "node:crypto";
import type { AgentCard, Message, Task } from "a2a-js-sdk-v0-3";
import { A2AClient } from "a2a-js-sdk-v0-3/client";
import { beforeAll, describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");

function userMessage(parts: Message["parts"]): Message {
  return { kind: "message", role: "user", messageId: randomUUID(), parts };
}

const dataMessage = (skill: string, input: Record<string, unknown>): Message => userMessage([{ kind: "data", data: { skill, input } }]);
const textMessage = (text: string): Message => userMessage([{ kind: "text", text }]);

interface RpcBody {
  jsonrpc: string;
  id: string | number | null;
  result?: Task & Record<string, unknown>;
  error?: { code: number; message: string };
}

async function rpc(body: unknown, init: { raw?: string } = {}): Promise<{ status: number; body: RpcBody }> {
  const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json" }, body: init.raw ?? JSON.stringify(body) });
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as RpcBody };
}

async function send(message: Message): Promise<Task> {
  const { body } = await rpc({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } });
  expect(body.error).toBeUndefined();
  return body.result as Task;
}

function dataOf(task: Task): unknown {
  const part = task.artifacts?.[0]?.parts.find((p) => p.kind === "data");
  return part && part.kind === "data" ? part.data : undefined;
}

describe("agent card", () => {
  it("is the same at /.well-known/agent-card.json and /.well-known/agent, with CORS *", async () => {
    const a = await fetch(`${base}/.well-known/agent-card.json`);
    const b = await fetch(`${base}/.well-known/agent`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers.get("access-control-allow-origin")).toBe("*");
    expect(b.headers.get("access-control-allow-origin")).toBe("*");
    const card = (await a.json()) as AgentCard;
    expect(await b.json()).toEqual(card);
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      url: `${base}/a2a`,
      preferredTransport: "JSONRPC",
      capabilities: { streaming: false, pushNotifications: false },
      documentationUrl: `${base}/docs/a2a`,
      provider: { organization: expect.any(String), url: base },
      defaultInputModes: expect.arrayContaining(["application/json"]),
      defaultOutputModes: ["application/json"],
    });
    expect(card.skills.map((s) => s.id)).toEqual(["lookup_member", "get_community_stats", "register_agent", "verify_certificate"]);
    for (const skill of card.skills) expect(skill.examples?.length).toBeGreaterThan(0);
  });
});

describe("A2A SDK client (0.3.x)", () => {
  let client: A2AClient;
  beforeAll(async () => {
    client = await A2AClient.fromCardUrl(`${base}/.well-known/agent-card.json`);
  });

  async function sendAndReadBack(message: Message): Promise<{ sent: Task; read: Task }> {
    const response = await client.sendMessage({ message });
    if ("error" in response) throw new Error(`message/send failed: ${JSON.stringify(response.error)}`);
    const sent = response.result as Task;
    expect(sent.kind).toBe("task");
    const got = await client.getTask({ id: sent.id });
    if ("error" in got) throw new Error(`tasks/get failed: ${JSON.stringify(got.error)}`);
    return { sent, read: got.result };
  }

  it("lookup_member", async () => {
    const { sent, read } = await sendAndReadBack(dataMessage("lookup_member", { name_or_slug: "Ada Lovelace" }));
    expect(sent.status.state).toBe("completed");
    expect(dataOf(sent)).toEqual({
      found: true,
      member: { display_name: "Ada Lovelace", slug: "ada-lovelace", member_since: "2023-03", profile_url: `${base}/members/ada-lovelace` },
    });
    expect(read.id).toBe(sent.id);
    expect(read.status.state).toBe("completed");
    expect(dataOf(read)).toEqual(dataOf(sent));
  });

  it("get_community_stats", async () => {
    const { sent, read } = await sendAndReadBack(dataMessage("get_community_stats", {}));
    expect(sent.status.state).toBe("completed");
    expect(dataOf(sent)).toEqual({ member_count: expect.any(Number), as_of: expect.any(String), cache_max_age_seconds: 1200 });
    expect(dataOf(read)).toEqual(dataOf(sent));
  });

  it("register_agent", async () => {
    const { sent, read } = await sendAndReadBack(dataMessage("register_agent", { agent_name: "A2A Test Agent", user_authorized: true }));
    expect(sent.status.state).toBe("completed");
    expect(dataOf(sent)).toMatchObject({ agent_name: "A2A Test Agent", status: "pre_registered", binding: false, reference: expect.stringMatching(/^pre_/) });
    expect(dataOf(read)).toEqual(dataOf(sent));
  });

  it("verify_certificate", async () => {
    const { sent, read } = await sendAndReadBack(dataMessage("verify_certificate", { certificate_id: "AG-2025-0001" }));
    expect(dataOf(sent)).toMatchObject({ status: "issued", certificate: { id: "AG-2025-0001", holder_display_name: "Ada Lovelace" } });
    expect(read.status.state).toBe("completed");
  });
});

describe("plain sentences through the 0.3.x SDK client (issue 42)", () => {
  let client: A2AClient;
  beforeAll(async () => {
    client = await A2AClient.fromCardUrl(`${base}/.well-known/agent-card.json`);
  });

  async function sendText(text: string): Promise<Task> {
    const response = await client.sendMessage({ message: textMessage(text) });
    if ("error" in response) throw new Error(`message/send failed: ${JSON.stringify(response.error)}`);
    return response.result as Task;
  }

  const statusText = (task: Task): string => {
    const part = task.status.message?.parts.find((p) => p.kind === "text");
    return part && part.kind === "text" ? part.text : "";
  };

  it("a question that maps to one skill runs it", async () => {
    const cases: Array<[string, string, unknown]> = [
      ["how many members are there?", "get_community_stats", { member_count: expect.any(Number), as_of: expect.any(String), cache_max_age_seconds: 1200 }],
      ["is AG-2025-0001 valid?", "verify_certificate", expect.objectContaining({ status: "issued", certificate: expect.objectContaining({ id: "AG-2025-0001" }) })],
      ["who is ada-lovelace", "lookup_member", expect.objectContaining({ found: true, member: expect.objectContaining({ slug: "ada-lovelace" }) })],
      ["Is Grace Hopper a member of the community?", "lookup_member", expect.objectContaining({ found: true, member: expect.objectContaining({ slug: "grace-hopper" }) })],
    ];
    for (const [text, skill, output] of cases) {
      const task = await sendText(text);
      expect(task.status.state, text).toBe("completed");
      expect(task.metadata).toMatchObject({ skill });
      expect(dataOf(task), text).toEqual(output);
    }
  });

  it("a text that asks for no skill, or to register, is a completed task whose message lists the skills; nothing is run", async () => {
    for (const text of ["tell me everything", 'Yes, I authorize you to pre-register the agent name "Words Only Agent" now.']) {
      const task = await sendText(text);
      expect(task.status.state, text).toBe("completed");
      expect(task.metadata).toMatchObject({ skill: "help" });
      expect(task.artifacts ?? []).toEqual([]);
      const help = statusText(task);
      expect(help).not.toMatch(/Unrecognized request/);
      for (const skill of ["lookup_member", "get_community_stats", "register_agent", "verify_certificate"]) expect(help).toContain(`- ${skill} (`);
      expect(help).toContain('say "how many members are there?"');
      const read = await client.getTask({ id: task.id });
      if ("error" in read) throw new Error(`tasks/get failed: ${JSON.stringify(read.error)}`);
      expect(read.result.status.state).toBe("completed");
    }
    const register = await sendText("register my agent Words Only Agent");
    expect(statusText(register)).toMatch(/^register_agent never runs from a sentence: .*"user_authorized": true/);
    expect(register.artifacts ?? []).toEqual([]);
  });
});

describe("message/send forms and failures", () => {
  it("accepts the short text forms", async () => {
    expect(dataOf(await send(textMessage("lookup_member Sofía Ramírez")))).toMatchObject({ found: true, member: { slug: "sofia-ramirez" } });
    expect(dataOf(await send(textMessage("get_community_stats")))).toMatchObject({ cache_max_age_seconds: 1200 });
    expect(dataOf(await send(textMessage("verify_certificate AG-2024-0099")))).toEqual({ status: "not_found" });
  });

  it("bad tool input gives a failed task with a clear message", async () => {
    const cases: Array<[Message, RegExp]> = [
      [dataMessage("register_agent", { agent_name: "No Consent" }), /user_authorized must be true/],
      [dataMessage("lookup_member", {}), /name_or_slug/],
      [dataMessage("list_members", {}), /Unknown skill/],
      [textMessage("register_agent Foo"), /data part/],
      [userMessage([{ kind: "data", data: { input: {} } }]), /skill/],
    ];
    for (const [message, pattern] of cases) {
      const task = await send(message);
      expect(task.status.state).toBe("failed");
      const text = task.status.message?.parts.find((p) => p.kind === "text");
      expect(text && text.kind === "text" ? text.text : "").toMatch(pattern);
      expect(task.artifacts ?? []).toEqual([]);
    }
  });
});

describe("JSON-RPC error paths", () => {
  it("parse error -32700", async () => {
    const { body } = await rpc(null, { raw: "{not json" });
    expect(body).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it("invalid request -32600", async () => {
    for (const bad of [
      [],
      42,
      { id: 1, method: "message/send" },
      { jsonrpc: "1.0", id: 1, method: "tasks/get" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: { x: 1 }, method: "tasks/get" },
    ]) {
      const { body } = await rpc(bad);
      expect(body.error?.code, JSON.stringify(bad)).toBe(-32600);
    }
  });

  it("unknown method -32601", async () => {
    const { body } = await rpc({ jsonrpc: "2.0", id: "x", method: "tasks/list", params: {} });
    expect(body).toMatchObject({ id: "x", error: { code: -32601 } });
  });

  it("invalid params -32602", async () => {
    for (const params of [undefined, {}, { message: { kind: "message", role: "user", parts: [] } }, { message: { role: "user", parts: [{ kind: "text", text: "x" }] } }]) {
      const { body } = await rpc({ jsonrpc: "2.0", id: 3, method: "message/send", params });
      expect(body.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    const { body } = await rpc({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { id: 12 } });
    expect(body.error?.code).toBe(-32602);
  });

  it("a message's size is bounded: a text part of 10,000 characters and 20 parts run, one more is -32602 and nothing is stored", async () => {
    expect((await send(textMessage("x".repeat(10_000)))).kind).toBe("task");
    expect((await send(userMessage(Array.from({ length: 20 }, () => ({ kind: "text" as const, text: "get_community_stats" }))))).kind).toBe("task");
    for (const message of [textMessage("x".repeat(10_001)), userMessage(Array.from({ length: 21 }, () => ({ kind: "text" as const, text: "x" })))]) {
      const { status, body } = await rpc({ jsonrpc: "2.0", id: 6, method: "message/send", params: { message } });
      expect(status).toBe(200);
      expect(body.error?.code).toBe(-32602);
      expect(body.result).toBeUndefined();
    }
  });

  it("tasks/get of an unknown task -32001", async () => {
    const { body } = await rpc({ jsonrpc: "2.0", id: 5, method: "tasks/get", params: { id: randomUUID() } });
    expect(body.error?.code).toBe(-32001);
  });

  it("tasks/cancel of a finished task -32002", async () => {
    const task = await send(dataMessage("get_community_stats", {}));
    const { body } = await rpc({ jsonrpc: "2.0", id: 6, method: "tasks/cancel", params: { id: task.id } });
    expect(body.error?.code).toBe(-32002);
  });

  it("message/stream and tasks/resubscribe -32004", async () => {
    for (const method of ["message/stream", "tasks/resubscribe"]) {
      const { body } = await rpc({ jsonrpc: "2.0", id: 7, method, params: { message: dataMessage("get_community_stats", {}), id: "t" } });
      expect(body.error?.code, method).toBe(-32004);
    }
  });

  it("push-notification methods -32003", async () => {
    for (const method of ["tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"]) {
      const { body } = await rpc({ jsonrpc: "2.0", id: 8, method, params: { id: "t", taskId: "t", pushNotificationConfig: { url: "https://example.com/hook" } } });
      expect(body.error?.code, method).toBe(-32003);
    }
  });

  it("GET /a2a is 405; a body over 64 KiB is refused", async () => {
    const get = await fetch(`${base}/a2a`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const big = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pad: "x".repeat(70_000) }) });
    expect(big.status).toBe(413);
  });
});
