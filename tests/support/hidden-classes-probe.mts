// Run by tests/unit/hidden-classes.test.ts in a process of its own, under --allow-natives-syntax: builds each
// request-path object 2,000 times from fresh inputs (past the point where V8's inline caches take over) and
// reports, as one JSON line, whether the last two of each share a hidden class (%HaveSameMap).
import { paramsToRun, parseA2aRequest } from "../../lib/a2a/jsonrpc";
import { parseA2aV1Request } from "../../lib/a2a/v1";
import { discoveryText } from "../../lib/discovery/respond";
import { jsonReply, textReply } from "../../lib/http/api";
import { errorReply, jsonRpcErrorReply, jsonRpcTransportErrorReply } from "../../lib/http/errors";
import { withFields } from "../../lib/objects";

const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: unknown, b: unknown) => boolean;

function sharesHiddenClass(build: (i: number) => object): boolean {
  let previous: object | undefined;
  let last: object | undefined;
  for (let i = 0; i < 2000; i++) {
    previous = last;
    last = build(i);
  }
  return haveSameMap(previous, last);
}

const freshHeaders = (i: number): Record<string, string> => ({ "cache-control": "no-store", "x-request": String(i) });
const v1Send = (i: number): string =>
  JSON.stringify({ jsonrpc: "2.0", id: i, method: "SendMessage", params: { message: { messageId: `m${i}`, role: "ROLE_USER", parts: [{ text: "stats" }] } } });
const legacySend = (i: number): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: i,
    method: "message/send",
    params: { message: { kind: "message", messageId: `m${i}`, role: "user", parts: [{ kind: "text", text: "stats" }] } },
  });

function runnable(text: string, version: "0.3" | "1.0"): Record<string, unknown> {
  const parsed = version === "1.0" ? { ...parseA2aV1Request(text), version } : { ...parseA2aRequest(text), version };
  if (!parsed.ok) throw new Error(`the probe's message does not parse: ${text}`);
  return paramsToRun(parsed);
}

const report = {
  // What the helpers replace: on Node 20 this is false, which shows the probe sees the problem at all.
  control: sharesHiddenClass((i) => ({ ...freshHeaders(i), "content-length": String(i) })),
  withFields: sharesHiddenClass((i) => withFields(freshHeaders(i), { "content-length": String(i) })),
  textReply: sharesHiddenClass((i) => textReply("body", 200, freshHeaders(i)).headers),
  jsonReply: sharesHiddenClass((i) => jsonReply({ i }, freshHeaders(i)).headers),
  errorReply: sharesHiddenClass((i) => errorReply("invalid_request", "bad", { headers: freshHeaders(i) }).headers),
  jsonRpcErrorReply: sharesHiddenClass((i) => jsonRpcErrorReply(i, { code: -32010, message: "limited" }, 429, freshHeaders(i)).headers),
  jsonRpcTransportErrorReply: sharesHiddenClass((i) => jsonRpcTransportErrorReply(400, "bad", freshHeaders(i)).headers),
  discoveryText: sharesHiddenClass((i) => discoveryText("{}", "application/json", freshHeaders(i)).headers),
  a2aV1Params: sharesHiddenClass((i) => runnable(v1Send(i), "1.0")),
  a2aV1Configuration: sharesHiddenClass((i) => runnable(v1Send(i), "1.0")["configuration"] as object),
  a2aLegacyParams: sharesHiddenClass((i) => runnable(legacySend(i), "0.3")),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
