// Runs one documented shell block through bash against a test server, as a reader would paste it, and records
// every curl call's status, headers and body (a `curl` function wraps the real one; it adds only -D, a timeout
// and a bound on the connection, never changing what the command prints).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface RecordedCall {
  args: string;
  status: number;
  headers: Headers;
  body: string;
  exitCode: number;
}

export interface BlockRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  calls: RecordedCall[];
  /** Variables the block set (and those of the blocks before it), as bash `declare -p` lines. */
  variables: string;
}

const PRELUDE = String.raw`
set -euo pipefail
curl() {
  local n
  n=$(( $(<"$__CALLS/n") + 1 ))
  echo "$n" > "$__CALLS/n"
  printf '%s\n' "$*" > "$__CALLS/$n.args"
  local rc=0
  command curl -S -D "$__CALLS/$n.head" --connect-timeout 5 --max-time 30 "$@" > "$__CALLS/$n.body" || rc=$?
  echo "$rc" > "$__CALLS/$n.rc"
  cat "$__CALLS/$n.body"
  return "$rc"
}
`;

/** The variables set by the block and the blocks before it, written out at its end for the next block of the same page. */
const EPILOGUE = String.raw`
__status=$?
: > "$__CALLS/vars"
# Bash builtins only: a grep per variable was thousands of processes a test run.
declare -A __before=()
while IFS= read -r __v; do __before[$__v]=1; done < "$__CALLS/before"
for __v in $(compgen -v); do
  case "$__v" in __*|BASH*|FUNCNAME|PIPESTATUS|LINENO|RANDOM|SECONDS|_|OPTIND|OPTARG|COLUMNS|LINES|HISTCMD|EPOCH*|SRANDOM|PPID|UID|EUID|SHELLOPTS|GROUPS|DIRSTACK|HOSTNAME|HOSTTYPE|IFS|MACHTYPE|OSTYPE|PS4|SHLVL|PWD|OLDPWD|HOME|PATH|BASE) continue;; esac
  if [[ ! -v __before[$__v] ]]; then declare -p "$__v" >> "$__CALLS/vars"; fi
done
exit $__status
`;

function parseHeaders(raw: string): { status: number; headers: Headers } {
  // -D writes one header block per response (redirects, 100 Continue): the last one is the answer.
  const blocks = raw.split(/\r?\n\r?\n/).filter((b) => /^HTTP\//.test(b.trim()));
  const last = blocks.at(-1) ?? "";
  const [statusLine = "", ...lines] = last.trim().split(/\r?\n/);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status: Number(/^HTTP\/[\d.]+\s+(\d{3})/.exec(statusLine)?.[1] ?? 0), headers };
}

/** The answer's body: what curl printed, without the header blocks that `-i` puts before it. */
function bodyOf(printed: string): string {
  let body = printed;
  while (/^HTTP\/[\d.]+ \d{3}/.test(body)) {
    const end = body.search(/\r?\n\r?\n/);
    if (end < 0) return "";
    body = body.slice(end).replace(/^\r?\n\r?\n/, "");
  }
  return body;
}

export interface BlockOptions {
  /** Where the block runs; default: a throwaway directory (a command meant for a checkout finds none there). */
  cwd?: string;
  /** Variables of the block's environment on top of the test's own (its DATABASE_URL and Vite's BASE_URL are left out). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs `text` in bash with BASE set and the variables of earlier blocks (`variables`). */
export async function runShellBlock(text: string, base: string, variables = "", options: BlockOptions = {}): Promise<BlockRun> {
  const { timeoutMs = 60_000 } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "doc-block-"));
  try {
    fs.writeFileSync(path.join(dir, "n"), "0");
    fs.writeFileSync(path.join(dir, "vars"), variables);
    // The block runs in the script's own shell; the EXIT trap writes out the variables it set.
    const full = `${PRELUDE}\ncompgen -v > "$__CALLS/before"\nsource "$__CALLS/vars"\n${text}\n`;
    fs.writeFileSync(path.join(dir, "block.sh"), `${full}\n`);
    fs.writeFileSync(path.join(dir, "run.sh"), `trap '${EPILOGUE.replace(/'/g, "'\\''")}' EXIT\nsource "$__CALLS/block.sh"\n`);
    // Nothing of the test process's own database, nor Vite's BASE_URL, reaches the block.
    const env: NodeJS.ProcessEnv = { ...process.env, BASE: base, __CALLS: dir, LC_ALL: "C.UTF-8" };
    delete env.DATABASE_URL;
    delete env.BASE_URL;
    Object.assign(env, options.env);
    const { exitCode, stdout, stderr } = await new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "bash",
        [path.join(dir, "run.sh")],
        { cwd: options.cwd ?? dir, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, killSignal: "SIGKILL" },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
          resolve({ exitCode: code, stdout, stderr });
        },
      );
    });
    const count = Number(fs.readFileSync(path.join(dir, "n"), "utf8").trim());
    const calls: RecordedCall[] = [];
    for (let n = 1; n <= count; n++) {
      const read = (suffix: string): string => (fs.existsSync(path.join(dir, `${n}.${suffix}`)) ? fs.readFileSync(path.join(dir, `${n}.${suffix}`), "utf8") : "");
      const { status, headers } = parseHeaders(read("head"));
      calls.push({ args: read("args").trim(), status, headers, body: bodyOf(read("body")), exitCode: Number(read("rc").trim() || "-1") });
    }
    return { exitCode, stdout, stderr, calls, variables: fs.readFileSync(path.join(dir, "vars"), "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
