// A latency probe in a process of its own (tests/http/overload.test.ts): the test's own event loop is busy with the
// burst's answers, so times measured there would include the client's queueing, not only the server's. Waits for a
// line on stdin, then sends each request given as an argument (JSON: { path, headers }) on a fresh connection at once
// and prints one JSON line: [{ status, ms }] in argument order (status 0 and the error's message on a socket error).
import http from "node:http";
import readline from "node:readline";

const [base, ...specs] = process.argv.slice(2);
const requests = specs.map((spec) => JSON.parse(spec));

function probe({ path, headers }) {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${base}${path}`, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error("no answer within 30 s")));
    req.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, error: error.message }));
  });
}

process.stdout.write("ready\n");
readline.createInterface({ input: process.stdin }).once("line", async () => {
  const results = await Promise.all(requests.map(probe));
  process.stdout.write(`${JSON.stringify(results)}\n`);
  process.exit(0);
});
