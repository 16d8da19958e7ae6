// Issue 42: every command a reader copies from README.md, from the operator docs (docs/*.md, issue 51) or from the
// published docs works as written. Each shell block is run through bash against the production server (front on, then
// NODE_FRONT=off), with only BASE set; README's and docs/'s in a throwaway copy of the checkout (its files linked) whose
// DATABASE_URL is the server's, so an operator's `npm run …` works on the server's data; the published docs' blocks are
// read from the server that serves them (so they name its BASE_URL), which never serves their not-run markers.
// Each curl call must answer what the text's `# →` comment says (status, members, header), else 2xx.
// A block that cannot run here carries `<!-- not-run: why -->` on the line before its fence (DEVELOPING.md).
import { execFile, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionCookie } from "../support/browser-session";
import { childEnv, ROOT, testProvider } from "../support/databases";
import { parseBlock, shellBlocks, type Claim, type ShellBlock } from "../support/documented-commands";
import { runShellBlock, type BlockOptions, type BlockRun, type RecordedCall } from "../support/run-shell-block";
import { startServer, type TestServer } from "../support/server";

const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const DOC_FILES = fs.readdirSync(path.join(ROOT, "content", "docs")).filter((f) => f.endsWith(".md"));
const DOC_SOURCES = new Map(DOC_FILES.map((f) => [f, fs.readFileSync(path.join(ROOT, "content", "docs", f), "utf8")]));
const slugOf = (source: string): string => /^slug:\s*"?([a-z0-9-]+)"?/m.exec(source)![1]!;
/** The operator docs of the repository (docs/*.md), run as README's blocks are. */
const OPERATOR_DOCS = fs
  .readdirSync(path.join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => ({ file: `docs/${f}`, text: fs.readFileSync(path.join(ROOT, "docs", f), "utf8") }));

/** A served page's blocks, each marked not-run as its source marks it (the server leaves the markers out). */
function servedBlocks(served: string, source: string, where: string): ShellBlock[] {
  const fromSource = shellBlocks(source, where);
  const blocks = shellBlocks(served, where);
  if (blocks.length !== fromSource.length) throw new Error(`${where}: served with ${blocks.length} command blocks, its source has ${fromSource.length}`);
  return blocks.map((block, i) => ({ ...block, ...(fromSource[i]!.notRun !== undefined ? { notRun: fromSource[i]!.notRun } : {}) }));
}

/**
 * A copy of the checkout to run an operator's commands in: its files linked (package.json, node_modules, scripts, lib,
 * prisma…), so `npm run …` works there, and anything a block writes lands in the copy.
 */
function operatorCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-operator-"));
  for (const entry of ["package.json", "node_modules", "scripts", "lib", "prisma", "content", "tsconfig.json", "prisma.config.ts", "prisma.postgres.config.ts", ".next", "dist"])
    fs.symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  return dir;
}

/** The value at a dotted path of a JSON value (`result.task.status.state`). */
function at(value: unknown, dotted: string): unknown {
  let current = value;
  for (const key of dotted.split(".")) {
    if (typeof current !== "object" || current === null || !(key in current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** What is wrong with one recorded answer, measured against the claim of the text (or 2xx when it makes none). */
function problemsOf(call: RecordedCall, claim: Claim | undefined, base: string): string[] {
  const problems: string[] = [];
  const label = `curl ${call.args.slice(0, 120)}`;
  if (call.exitCode !== 0) problems.push(`${label}: curl exited ${call.exitCode}`);
  if (claim?.status !== undefined) {
    if (call.status !== claim.status) problems.push(`${label}: HTTP ${call.status}, the text says ${claim.status} (${claim.text})`);
  } else if (call.status < 200 || call.status > 299) problems.push(`${label}: HTTP ${call.status}, and the text claims no other status`);
  if (claim && claim.fields.length > 0) {
    let json: unknown;
    try {
      json = JSON.parse(call.body);
    } catch {
      problems.push(`${label}: the answer is not JSON, the text names members (${claim.text})`);
    }
    if (json !== undefined) {
      for (const field of claim.fields) {
        const actual = at(json, field.name);
        if (actual === undefined) problems.push(`${label}: no ${field.name} in the answer (${claim.text}): ${call.body.slice(0, 300)}`);
        else if (field.value !== undefined && actual !== field.value)
          problems.push(`${label}: ${field.name} is ${JSON.stringify(actual)}, the text says ${JSON.stringify(field.value)}`);
      }
    }
  }
  if (claim?.header) {
    const expected = claim.header.value.replaceAll("$BASE", base);
    const actual = call.headers.get(claim.header.name);
    if (actual !== expected) problems.push(`${label}: ${claim.header.name} is ${JSON.stringify(actual)}, the text says ${JSON.stringify(expected)}`);
  }
  if (claim?.emptyBody && call.body !== "") problems.push(`${label}: the text says the body is empty, it is ${JSON.stringify(call.body.slice(0, 200))}`);
  return problems;
}

/** What is wrong with one block's run: bash's exit, the number of calls, and each call against its claim. */
function blockProblems(block: ShellBlock, run: BlockRun, base: string): string[] {
  const { calls: claims } = parseBlock(block.text);
  const problems: string[] = [];
  if (run.exitCode !== 0) problems.push(`exited ${run.exitCode}: ${run.stderr.slice(-600)}`);
  if (run.calls.length !== claims.length) problems.push(`ran ${run.calls.length} curl calls, the text has ${claims.length}`);
  run.calls.forEach((call, i) => problems.push(...problemsOf(call, claims[i], base)));
  return problems.map((p) => `${block.where}: ${p}`);
}

/** The block as the test runs it: a line that only sets BASE is left out, since BASE is the test server's. */
function runnableText(block: ShellBlock): string {
  return block.text.replace(/^BASE=\S+[ \t]*$/m, "");
}

/**
 * Steps a reader does by hand between two blocks, done here over HTTP as the browser would: before the block that
 * matches `before`. Each must match exactly one block, so a README edit that moves a step fails here, not silently.
 */
interface HumanStep {
  before: RegExp;
  why: string;
  run(base: string, previous: RecordedCall[]): Promise<void>;
}

/** What the member does in a browser: sign in, open the link, type the code, click Approve (over HTTP, as the browser would). */
async function approveInBrowser(base: string, verificationUri: string, userCode: string, email: string): Promise<void> {
  const cookie = await sessionCookie(base, email);
  const page = await fetch(verificationUri, { headers: { Cookie: cookie }, signal: AbortSignal.timeout(20_000) });
  const html = await page.text();
  const formToken = /name="form_token" value="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !formToken) throw new Error(`the approval page answered ${page.status} without a form`);
  const attemptToken = new URL(verificationUri).searchParams.get("claim_attempt_token") ?? "";
  const decision = await fetch(`${base}/agent/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, "Sec-Fetch-Site": "same-origin", Origin: base },
    body: new URLSearchParams({ claim_attempt_token: attemptToken, form_token: formToken, user_code: userCode, decision: "approve" }).toString(),
    signal: AbortSignal.timeout(20_000),
  });
  await decision.arrayBuffer();
  if (decision.status !== 303) throw new Error(`the approval answered ${decision.status}`);
}

const README_HUMAN_STEPS: HumanStep[] = [
  {
    before: /^# 5\. Poll again/m,
    why: "walkthrough step 4: the member signs in and approves in a browser; step 5 waits `interval` seconds",
    async run(base, previous) {
      const registration = previous.find((call) => /\/agent\/identity\b/.test(call.args) && call.status === 200);
      if (!registration) throw new Error("no registration answer before the approval step");
      const reg = JSON.parse(registration.body) as { claim: { user_code: string; verification_uri: string; interval: number } };
      const email = /"login_hint":"([^"]+)"/.exec(registration.args)?.[1] ?? "ada@example.com";
      await approveInBrowser(base, reg.claim.verification_uri, reg.claim.user_code, email);
      // The block's first poll comes at least `interval` seconds after the last one, as its text says.
      await new Promise((resolve) => setTimeout(resolve, (reg.claim.interval + 0.5) * 1000));
    },
  },
  {
    before: /^# 10\. After the member revoked/m,
    why: "walkthrough: the member revokes the delegation on /account (the Revoke button)",
    async run(base, previous) {
      const registration = previous.find((call) => /\/agent\/identity\b/.test(call.args) && call.status === 200);
      if (!registration) throw new Error("no registration answer before the revocation step");
      const registrationId = (JSON.parse(registration.body) as { registration_id: string }).registration_id;
      const email = /"login_hint":"([^"]+)"/.exec(registration.args)?.[1] ?? "ada@example.com";
      const cookie = await sessionCookie(base, email);
      const page = await fetch(`${base}/account`, { headers: { Cookie: cookie }, signal: AbortSignal.timeout(20_000) });
      const html = await page.text();
      const row = html.slice(html.indexOf(`data-registration-id="${registrationId}"`));
      const delegationId = /name="delegation_id" value="([^"]+)"/.exec(row)?.[1];
      const formToken = /name="form_token" value="([^"]+)"/.exec(row)?.[1];
      if (page.status !== 200 || !delegationId || !formToken) throw new Error(`/account answered ${page.status} without the delegation's Revoke form`);
      const revoked = await fetch(`${base}/account/revoke`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, "Sec-Fetch-Site": "same-origin", Origin: base },
        body: new URLSearchParams({ delegation_id: delegationId, form_token: formToken }).toString(),
        signal: AbortSignal.timeout(20_000),
      });
      await revoked.arrayBuffer();
      if (revoked.status !== 303 || !/revoked=cancelled/.test(revoked.headers.get("location") ?? "")) throw new Error(`the revocation answered ${revoked.status}`);
    },
  },
];

/** Runs a page's blocks in order, carrying variables from one to the next, with the human steps between. */
async function runPage(blocks: ShellBlock[], base: string, humanSteps: HumanStep[] = [], options: BlockOptions = {}): Promise<{ problems: string[]; ran: number }> {
  const problems: string[] = [];
  let variables = "";
  let previous: RecordedCall[] = [];
  let ran = 0;
  const used = new Set<HumanStep>();
  for (const block of blocks) {
    if (block.notRun !== undefined || block.unlabelled) continue;
    for (const step of humanSteps.filter((s) => s.before.test(block.text))) {
      used.add(step);
      await step.run(base, previous);
    }
    const run = await runShellBlock(runnableText(block), base, variables, options);
    ran++;
    variables = run.variables;
    previous = [...previous, ...run.calls];
    problems.push(...blockProblems(block, run, base));
  }
  for (const step of humanSteps) if (!used.has(step)) problems.push(`no block matches the human step before ${step.before} (${step.why})`);
  return { problems, ran };
}

/**
 * The README's example with the MCP SDK's client: the file it says to save (```ts after "Save this as `client.mts`")
 * and the command it says to run it with (the next shell block).
 */
function readmeClient(): { file: string; code: string; command: string } {
  const match = /Save this as `([^`]+)`[\s\S]*?\n```ts\n([\s\S]*?)\n```[\s\S]*?```sh\n([^\n]*npx tsx [^\n]*)\n```/.exec(README);
  if (!match) throw new Error("README.md has no MCP client example: “Save this as `client.mts`”, its ```ts block, then a ```sh block running npx tsx");
  return { file: match[1]!, code: match[2]!, command: match[3]! };
}

/** Runs the README's client as a reader would: in a fresh folder (npm init -y's package.json) with the packages installed. */
function runReadmeClient(base: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { file, code, command } = readmeClient();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-client-"));
  // What `npm init -y && npm install @modelcontextprotocol/client tsx` leaves, without the registry: this checkout's packages.
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "mcp-client", version: "1.0.0", type: "commonjs" }));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  fs.writeFileSync(path.join(dir, file), code);
  const env = childEnv({});
  delete env.BASE;
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", command.replace(/BASE=\S+/, `BASE=${base}`)],
      { cwd: dir, env, timeout: 60_000, killSignal: "SIGKILL" },
      (error, stdout, stderr) => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** The TypeScript example of the DPoP page (issue 52), as the server serves it (its BASE_URL filled in). */
function dpopExampleOf(page: string): string {
  const match = /## A complete example with oauth4webapi[^\n]*\n[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(page);
  if (!match) throw new Error("the DPoP page has no TypeScript example under “A complete example with oauth4webapi”");
  return match[1]!;
}

/**
 * Runs a TypeScript file with tsx as a reader runs the DPoP example, playing the member: when the example prints the
 * link and the code, the member approves in the browser (over HTTP), and the example's polls then succeed.
 */
function runInteractiveExample(file: string, base: string): Promise<{ code: number | null; stdout: string; stderr: string; approvals: number }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), [file], { cwd: ROOT, env: childEnv({ BASE: base }) });
    const killer = setTimeout(() => child.kill("SIGKILL"), 100_000);
    let stdout = "";
    let stderr = "";
    let approvals = 0;
    let approving: Promise<void> = Promise.resolve();
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const prompt = /Open (\S+) and type the code (\d{8})/.exec(stdout);
      if (prompt && approvals === 0) {
        approvals++;
        approving = approveInBrowser(base, prompt[1]!, prompt[2]!, "ada@example.com").catch((error: unknown) => void (stderr += `approval failed: ${String(error)}\n`));
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => {
      clearTimeout(killer);
      void approving.then(() => resolve({ code, stdout, stderr, approvals }));
    });
  });
}

describe("the command blocks of README.md and of the published docs", () => {
  it("are each shell-labelled, and each block marked not-run says why", () => {
    const blocks = [
      ...shellBlocks(README, "README.md"),
      ...OPERATOR_DOCS.flatMap(({ file, text }) => shellBlocks(text, file)),
      ...DOC_FILES.flatMap((file) => shellBlocks(DOC_SOURCES.get(file)!, file)),
    ];
    const wrong = blocks.filter((b) => b.unlabelled || (b.notRun !== undefined && b.notRun.length < 8)).map((b) => b.where);
    expect(wrong).toEqual([]);
    // The walkthrough, the public surfaces and the docs' examples are run, not marked.
    expect(shellBlocks(README, "README.md").filter((b) => b.notRun === undefined).length).toBeGreaterThanOrEqual(5);
  });
});

// Front on and off on SQLite (npm test's first pass); the PostgreSQL pass runs them once, front on, for CI's time.
const FRONTS = testProvider() === "postgres" ? (["on"] as const) : (["on", "off"] as const);

for (const front of FRONTS) {
  describe(`documented commands, node:http front ${front}`, () => {
    let server: TestServer;
    let checkout = "";
    const operator = (): BlockOptions => ({ cwd: checkout, env: { DATABASE_URL: server.databaseUrl }, timeoutMs: 90_000 });
    beforeAll(async () => {
      checkout = operatorCheckout();
      for (const tool of ["curl", "jq"]) {
        if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0)
          throw new Error(`the documented commands need ${tool}: apt-get install -y ${tool} (README's test command line)`);
      }
      server = await startServer({ label: `commands-${front}`, env: front === "off" ? { NODE_FRONT: "off" } : {} });
    });
    afterAll(async () => {
      await server?.stop();
      if (checkout) fs.rmSync(checkout, { recursive: true, force: true });
    });

    it("README.md: every block not marked not-run answers as its text says", { timeout: 180_000 }, async () => {
      const { problems, ran } = await runPage(shellBlocks(README, "README.md"), server.baseUrl, README_HUMAN_STEPS, operator());
      expect(problems).toEqual([]);
      expect(ran).toBeGreaterThanOrEqual(5);
    });

    // The operator's commands run once, with the front on: they are the same whichever answers.
    if (front === "on") {
      for (const { file, text } of OPERATOR_DOCS) {
        it(`${file}: every block not marked not-run answers as its text says`, { timeout: 300_000 }, async () => {
          const { problems } = await runPage(shellBlocks(text, file), server.baseUrl, [], operator());
          expect(problems).toEqual([]);
        });
      }
    }

    it("the published docs, as served (pages' markdown twins and /auth.md): every block not marked not-run answers as its text says", { timeout: 240_000 }, async () => {
      const problems: string[] = [];
      let ran = 0;
      const served = [...DOC_SOURCES.values()].map((source) => ({ path: `/docs/${slugOf(source)}.md`, source }));
      served.push({ path: "/auth.md", source: [...DOC_SOURCES.values()].find((source) => slugOf(source) === "service-auth")! });
      for (const { path: servedPath, source } of served) {
        const res = await fetch(`${server.baseUrl}${servedPath}`, { signal: AbortSignal.timeout(20_000) });
        expect(res.status, servedPath).toBe(200);
        const text = await res.text();
        expect(text, servedPath).not.toMatch(/<!--\s*not-run/);
        const page = await runPage(servedBlocks(text, source, servedPath), server.baseUrl);
        problems.push(...page.problems);
        ran += page.ran;
      }
      expect(problems).toEqual([]);
      expect(ran).toBeGreaterThanOrEqual(25);
    });

    it("the DPoP page's oauth4webapi example runs as written: bound tokens from both grants, and a read with a proof", { timeout: 120_000 }, async () => {
      const page = await (await fetch(`${server.baseUrl}/docs/dpop.md`, { signal: AbortSignal.timeout(20_000) })).text();
      const dir = path.join(ROOT, ".tmp");
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `docs-dpop-example-${front}-${process.pid}.mts`);
      fs.writeFileSync(file, dpopExampleOf(page));
      try {
        const { code, stdout, stderr, approvals } = await runInteractiveExample(file, server.baseUrl);
        expect(code, `${stderr}\n${stdout}`).toBe(0);
        expect(approvals).toBe(1);
        expect(stdout).toContain("token_type: dpop");
        expect(stdout).toContain("email: 'ada@example.com'");
        expect(stdout).toContain("exchanged token_type: dpop");
      } finally {
        fs.rmSync(file, { force: true });
      }
    });

    it("README.md's example with the MCP SDK's client runs as pasted: saved as it says, run with its command, in a fresh folder", { timeout: 90_000 }, async () => {
      const { code, stdout, stderr } = await runReadmeClient(server.baseUrl);
      expect(code, stderr).toBe(0);
      for (const tool of ["lookup_member", "get_community_stats", "register_agent", "verify_certificate"]) expect(stdout).toContain(tool);
      expect(stdout).toContain("status: 'issued'");
    });
  });
}
