// /a2a speaks A2A 1.0 beside 0.3.0 (issue 15): the 1.x SDK's default client, untouched, finds the 1.0 interface on
// the card, sends a message and reads the task back; raw JSON-RPC covers version negotiation (A2A-Version), the
// 1.0 methods and their errors, and ListTasks' scoping by context.
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { beforeAll, describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");
/** Any RFC 9562 UUID (the SDK draws version 4). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, mediaType: "application/json", filename: "", metadata: undefined };
}

function textPart(value: string): Part {
  return { content: { $case: "text", value }, mediaType: "text/plain", filename: "", metadata: undefined };
}

function userMessage(parts: Part[], contextId = ""): Message {
  return { messageId: randomUUID(), role: Role.ROLE_USER, parts, contextId, taskId: "", metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function dataOf(task: Task): unknown {
  const content = task.artifacts[0]?.parts[0]?.content;
  return content?.$case === "data" ? content.value : undefined;
}

interface RpcBody {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

async function rpc(body: unknown, headers: Record<string, string> = { "A2A-Version": "1.0" }): Promise<{ status: number; body: RpcBody }> {
  const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as RpcBody };
}

/** A 1.0 SendMessage on the wire (proto JSON), as the 1.x client sends it. */
const sendMessage = (id: number | string, parts: unknown[], extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "SendMessage",
  params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts, ...extra } },
});

describe("the 1.x SDK's default client", () => {
  let client: Client;
  beforeAll(async () => {
    client = await new ClientFactory().createFromUrl(base);
  });

  it("picks the 1.0 JSON-RPC interface of the card", () => {
    expect(client.protocolVersion).toBe("1.0");
  });

  it("sends each skill and reads the task back with GetTask", async () => {
    const cases: Array<[Part, unknown]> = [
      [
        dataPart({ skill: "lookup_member", input: { name_or_slug: "Ada Lovelace" } }),
        { found: true, member: { display_name: "Ada Lovelace", slug: "ada-lovelace", member_since: "2023-03", profile_url: `${base}/members/ada-lovelace` } },
      ],
      [dataPart({ skill: "get_community_stats", input: {} }), { member_count: expect.any(Number), as_of: expect.any(String), cache_max_age_seconds: 1200 }],
      [textPart("verify_certificate AG-2025-0001"), expect.objectContaining({ status: "issued", certificate: expect.objectContaining({ id: "AG-2025-0001" }) })],
      [
        dataPart({ skill: "register_agent", input: { agent_name: `A2A One Agent ${randomUUID().slice(0, 6)}`, user_authorized: true } }),
        expect.objectContaining({ status: "pre_registered", binding: false }),
      ],
    ];
    for (const [part, expected] of cases) {
      const sent = await client.sendMessage({ tenant: "", message: userMessage([part]), configuration: undefined, metadata: undefined });
      if (!("id" in sent)) throw new Error("SendMessage answered a message, not a task");
      const task = sent as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(dataOf(task)).toEqual(expected);
      const read = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(read.id).toBe(task.id);
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(dataOf(read)).toEqual(dataOf(task));
    }
  });

  it("a bad request is a failed task with a clear message", async () => {
    const sent = (await client.sendMessage({ tenant: "", message: userMessage([textPart("register_agent Foo")]), configuration: undefined, metadata: undefined })) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const text = sent.status?.message?.parts[0]?.content;
    expect(text?.$case === "text" ? text.value : "").toMatch(/needs a data part/);
    expect(sent.artifacts).toEqual([]);
  });

  // Issue 42: plain sentences.
  const sendText = async (text: string): Promise<Task> =>
    (await client.sendMessage({ tenant: "", message: userMessage([textPart(text)]), configuration: undefined, metadata: undefined })) as Task;
  const statusText = (task: Task): string => {
    const content = task.status?.message?.parts[0]?.content;
    return content?.$case === "text" ? content.value : "";
  };

  it("a question that maps to one skill runs it", async () => {
    const cases: Array<[string, string, unknown]> = [
      ["member count", "get_community_stats", { member_count: expect.any(Number), as_of: expect.any(String), cache_max_age_seconds: 1200 }],
      ["verify certificate AG-2025-0001", "verify_certificate", expect.objectContaining({ status: "issued", certificate: expect.objectContaining({ id: "AG-2025-0001" }) })],
      ["look up Ada Lovelace", "lookup_member", expect.objectContaining({ found: true, member: expect.objectContaining({ slug: "ada-lovelace" }) })],
    ];
    for (const [text, skill, output] of cases) {
      const task = await sendText(text);
      expect(task.status?.state, text).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.metadata).toMatchObject({ skill });
      expect(dataOf(task), text).toEqual(output);
    }
  });

  it("a text that asks for no skill, or for two, is a completed task whose message lists the skills, with no artifact", async () => {
    for (const [text, lead] of [
      ["tell me everything", /^This agent found no request/],
      ["how many members are there, and is AG-2025-0001 valid?", /^That text could ask for more than one skill \(verify_certificate, get_community_stats\)/],
    ] as const) {
      const task = await sendText(text);
      expect(task.status?.state, text).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.metadata).toMatchObject({ skill: "help" });
      expect(task.artifacts).toEqual([]);
      const help = statusText(task);
      expect(help).toMatch(lead);
      expect(help).not.toMatch(/Unrecognized request/);
      for (const skill of ["lookup_member", "get_community_stats", "register_agent", "verify_certificate"]) expect(help).toContain(`- ${skill} (`);
      const read = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
  });

  it("ListTasks lists the tasks of the caller's context; CancelTask of a finished task is TaskNotCancelable", async () => {
    const first = (await client.sendMessage({ tenant: "", message: userMessage([textPart("get_community_stats")]), configuration: undefined, metadata: undefined })) as Task;
    const second = (await client.sendMessage({
      tenant: "",
      message: userMessage([textPart("verify_certificate AG-2024-0099")], first.contextId),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(second.contextId).toBe(first.contextId);
    const listed = await client.listTasks({
      tenant: "",
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      statusTimestampAfter: undefined,
      pageSize: undefined,
      historyLength: undefined,
      includeArtifacts: true,
    });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
    expect(listed.totalSize).toBe(2);
    await expect(client.cancelTask({ tenant: "", id: first.id, metadata: undefined })).rejects.toMatchObject({ name: "TaskNotCancelableError" });
  });
});

describe("version negotiation by A2A-Version", () => {
  const getUnknown = { jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: randomUUID() } };

  it("1.0 (and 1.0.x) speaks 1.0; no header, an empty one or 0.3 speaks 0.3", async () => {
    for (const version of ["1.0", " 1.0 ", "1.0.1"]) expect((await rpc(getUnknown, { "A2A-Version": version })).body.error?.code, version).toBe(-32001);
    const legacyHeaders: Record<string, string>[] = [{}, { "A2A-Version": "" }, { "A2A-Version": "0.3" }, { "A2A-Version": "0.3.0" }];
    for (const headers of legacyHeaders) {
      const answer = await rpc(getUnknown, headers);
      expect(answer.body.error?.code, JSON.stringify(headers)).toBe(-32601);
      expect(answer.body.error?.message).toMatch(/A2A-Version: 1\.0/);
      expect((await rpc({ jsonrpc: "2.0", id: 8, method: "tasks/get", params: { id: randomUUID() } }, headers)).body.error?.code).toBe(-32001);
    }
  });

  it("any other version is VersionNotSupported (-32009), HTTP 200, nothing run", async () => {
    for (const version of ["2.0", "0.2", "1", "abc", "1.0, 0.3", "9999.9999"]) {
      const answer = await rpc(sendMessage(9, [{ text: "get_community_stats" }]), { "A2A-Version": version });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32009, data: [expect.objectContaining({ reason: "VERSION_NOT_SUPPORTED" })] } });
      expect(answer.body.result).toBeUndefined();
    }
  });

  it("a 0.3 method under A2A-Version: 1.0 is -32601 with a hint", async () => {
    const answer = await rpc({ jsonrpc: "2.0", id: 1, method: "message/send", params: {} });
    expect(answer.body.error).toMatchObject({ code: -32601, message: expect.stringMatching(/A2A 0\.3 method/) });
  });
});

describe("A2A 1.0 methods over raw JSON-RPC", () => {
  it("SendMessage answers {task} with the 1.0 shapes; GetTask honours historyLength", async () => {
    const { body } = await rpc(sendMessage("s", [{ data: { skill: "lookup_member", input: { name_or_slug: "grace-hopper" } }, mediaType: "application/json" }]));
    const task = body.result?.["task"] as { id: string; contextId: string; status: { state: string }; artifacts: { parts: { data?: unknown }[] }[]; history: unknown[] };
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]!.parts[0]!.data).toMatchObject({ found: true, member: { slug: "grace-hopper" } });
    expect(task).not.toHaveProperty("kind");
    const read = await rpc({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: task.id, historyLength: 0 } });
    expect(read.body.result).toMatchObject({ id: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect(read.body.result?.["history"] ?? []).toEqual([]);
  });

  it("unknown task -32001; CancelTask of a completed task -32002 (TaskNotCancelable)", async () => {
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: randomUUID() } })).body.error).toMatchObject({ code: -32001 });
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "CancelTask", params: { id: randomUUID() } })).body.error).toMatchObject({ code: -32001 });
    const task = (await rpc(sendMessage(1, [{ text: "get_community_stats" }]))).body.result?.["task"] as { id: string };
    const cancel = await rpc({ jsonrpc: "2.0", id: 3, method: "CancelTask", params: { id: task.id } });
    expect(cancel.body.error).toMatchObject({ code: -32002, data: [expect.objectContaining({ reason: "TASK_NOT_CANCELABLE" })] });
    expect((await rpc({ jsonrpc: "2.0", id: 4, method: "GetTask", params: { id: task.id } })).body.result).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
  });

  it("a message to a finished task is UnsupportedOperation (-32004)", async () => {
    const task = (await rpc(sendMessage(1, [{ text: "get_community_stats" }]))).body.result?.["task"] as { id: string };
    const answer = await rpc(sendMessage(2, [{ text: "get_community_stats" }], { taskId: task.id }));
    expect(answer.body.error).toMatchObject({ code: -32004, message: expect.stringMatching(/TASK_STATE_COMPLETED/) });
  });

  it("streaming, push notifications and the extended card: -32004 and -32003", async () => {
    for (const method of ["SendStreamingMessage", "SubscribeToTask", "GetExtendedAgentCard"]) {
      expect((await rpc({ jsonrpc: "2.0", id: 1, method, params: { id: "t" } })).body.error?.code, method).toBe(-32004);
    }
    for (const method of ["CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"]) {
      expect((await rpc({ jsonrpc: "2.0", id: 1, method, params: { taskId: "t" } })).body.error?.code, method).toBe(-32003);
    }
  });

  it("invalid params are -32602 with the INVALID_PARAMS detail", async () => {
    const bad: unknown[] = [
      sendMessage(1, []),
      sendMessage(1, [{ text: "a", data: {} }]),
      { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "user", parts: [{ text: "x" }] } } },
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: 5 } },
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t", tenant: "acme" } },
      { jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} },
      { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId: "c", pageSize: 101 } },
      { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId: "c", pageToken: "not-ours" } },
      { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId: "c", statusTimestampAfter: "yesterday" } },
    ];
    for (const body of bad) {
      const answer = await rpc(body);
      expect(answer.status).toBe(200);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: -32602, data: [expect.objectContaining({ reason: "INVALID_PARAMS" })] });
    }
  });

  it("an array is -32600 and nothing runs, whatever its length", async () => {
    const contextId = `ctx-batch-${randomUUID()}`;
    const eleven = Array.from({ length: 11 }, (_, i) => sendMessage(i, [{ text: "get_community_stats" }], { contextId }));
    for (const batch of [eleven, eleven.slice(0, 2)]) {
      const answer = await rpc(batch);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId } })).body.result).toMatchObject({ tasks: [], totalSize: 0 });
  });
});

describe("ListTasks is scoped to one context", () => {
  it("one caller never sees another caller's tasks; pages are stable", async () => {
    const mine = (await rpc(sendMessage(1, [{ text: "get_community_stats" }]))).body.result?.["task"] as { id: string; contextId: string };
    const theirs = (await rpc(sendMessage(2, [{ text: "get_community_stats" }]))).body.result?.["task"] as { id: string; contextId: string };
    expect(theirs.contextId).not.toBe(mine.contextId);
    // A context the server starts, and its task, have UUIDs (the SDK draws them).
    for (const task of [mine, theirs]) {
      expect(task.contextId).toMatch(UUID);
      expect(task.id).toMatch(UUID);
    }
    for (let i = 0; i < 2; i++) await rpc(sendMessage(3 + i, [{ text: "verify_certificate AG-2025-0002" }], { contextId: mine.contextId }));

    const page1 = (await rpc({ jsonrpc: "2.0", id: 9, method: "ListTasks", params: { contextId: mine.contextId, pageSize: 2 } })).body.result as {
      tasks: { id: string; contextId: string; artifacts?: unknown }[];
      nextPageToken: string;
      totalSize: number;
      pageSize: number;
    };
    expect(page1).toMatchObject({ totalSize: 3, pageSize: 2 });
    expect(page1.tasks).toHaveLength(2);
    expect(page1.nextPageToken).not.toBe("");
    const page2 = (await rpc({ jsonrpc: "2.0", id: 10, method: "ListTasks", params: { contextId: mine.contextId, pageSize: 2, pageToken: page1.nextPageToken } })).body.result as {
      tasks: { id: string; contextId: string }[];
      nextPageToken?: string;
    };
    expect(page2.tasks).toHaveLength(1);
    expect(page2.nextPageToken ?? "").toBe("");
    const ids = [...page1.tasks, ...page2.tasks].map((t) => t.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    for (const task of [...page1.tasks, ...page2.tasks]) expect(task.contextId).toBe(mine.contextId);
    // Artifacts only when asked for (the SDK's serializer), and a status filter.
    expect(page1.tasks[0]!.artifacts ?? []).toEqual([]);
    const completed = (await rpc({ jsonrpc: "2.0", id: 11, method: "ListTasks", params: { contextId: mine.contextId, status: "TASK_STATE_FAILED" } })).body.result;
    expect(completed).toMatchObject({ tasks: [], totalSize: 0 });
    const unknown = (await rpc({ jsonrpc: "2.0", id: 12, method: "ListTasks", params: { contextId: randomUUID() } })).body.result;
    expect(unknown).toMatchObject({ tasks: [], totalSize: 0 });
  });
});
