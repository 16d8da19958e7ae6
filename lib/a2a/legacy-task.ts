// Rows written before A2A 1.0 hold a 0.3 Task (`kind: "task"`, lower-case states, `kind`-tagged parts); they stay
// readable for their 24 hours after an upgrade. Only the shapes this agent ever stored are mapped.
type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const STATES: Readonly<Record<string, string>> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
};

function part(value: unknown): Json {
  if (!isRecord(value)) return {};
  const metadata = isRecord(value["metadata"]) ? { metadata: value["metadata"] } : {};
  if (value["kind"] === "text") return { text: value["text"], ...metadata };
  if (value["kind"] === "data") return { data: value["data"], mediaType: "application/json", ...metadata };
  return { ...metadata };
}

function message(value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  const { kind: _kind, role, parts, ...rest } = value;
  return { ...rest, role: role === "agent" ? "ROLE_AGENT" : "ROLE_USER", parts: Array.isArray(parts) ? parts.map(part) : [] };
}

/** The 1.0 proto JSON of a stored 0.3 task, or undefined when `stored` is not one. */
export function legacyTaskToV1Json(stored: unknown): Json | undefined {
  if (!isRecord(stored) || stored["kind"] !== "task") return undefined;
  const status = isRecord(stored["status"]) ? stored["status"] : {};
  const state = typeof status["state"] === "string" ? STATES[status["state"]] : undefined;
  const artifacts = Array.isArray(stored["artifacts"]) ? stored["artifacts"] : [];
  const history = Array.isArray(stored["history"]) ? stored["history"] : [];
  return {
    id: stored["id"],
    contextId: stored["contextId"],
    status: { state: state ?? "TASK_STATE_UNSPECIFIED", message: message(status["message"]), timestamp: status["timestamp"] },
    artifacts: artifacts.filter(isRecord).map((artifact) => ({ ...artifact, parts: Array.isArray(artifact["parts"]) ? artifact["parts"].map(part) : [] })),
    history: history.map(message).filter((m): m is Json => m !== undefined),
    metadata: stored["metadata"],
  };
}
