// Issue 32 item 5: deploy/agent-gate.service runs `npm start`'s script under systemd, restarted whenever it
// stops, as its own user, with a memory ceiling the start script sizes the heap from, and hardened.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnvironmentFile } from "../../scripts/lib";
import { ROOT } from "../support/databases";

const UNIT = path.join(ROOT, "deploy", "agent-gate.service");

/** The unit's settings: section → key → every value it was given, in order (comments and blanks dropped). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (!current || eq <= 0) throw new Error(`not a unit file line: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const unit = parseUnit(fs.readFileSync(UNIT, "utf8"));
const service = unit.get("Service") ?? new Map<string, string[]>();
const value = (key: string): string | undefined => service.get(key)?.at(-1);

describe("deploy/agent-gate.service", () => {
  it("runs npm start's script under the project's Node as agent-gate from /opt/agent-gate with the env file, restarted always", () => {
    expect(value("Type")).toBe("simple");
    expect(value("User")).toBe("agent-gate");
    expect(value("WorkingDirectory")).toBe("/opt/agent-gate");
    expect(value("EnvironmentFile")).toBe("/etc/agent-gate/env");
    expect(value("ExecStart")).toBe("/bin/sh scripts/start.sh");
    // scripts/start.sh runs the first `node` on PATH: the project's pinned runtime, as under `npm start`.
    expect(value("Environment")).toMatch(/^PATH=\/opt\/agent-gate\/node_modules\/\.bin:/);
    expect(value("Restart")).toBe("always");
    expect(value("RestartSec")).toBe("2");
    expect(unit.get("Install")?.get("WantedBy")).toEqual(["multi-user.target"]);
  });

  it("listens on loopback only, behind the reverse proxy on the same host (issue 41 item 7)", () => {
    expect(service.get("Environment")).toContain("HOSTNAME=127.0.0.1");
  });

  it("caps memory at 1G and leaves the 10 s drain room before SIGKILL", () => {
    expect(value("MemoryMax")).toBe("1G");
    expect(value("KillSignal")).toBe("SIGTERM");
    expect(Number(value("TimeoutStopSec"))).toBeGreaterThan(10);
    expect(value("UMask")).toBe("0077");
  });

  it("is hardened, writable only in its data directory, and never denies W+X pages (V8's JIT needs them)", () => {
    const yes = [
      "NoNewPrivileges",
      "ProtectHome",
      "PrivateTmp",
      "PrivateDevices",
      "ProtectKernelTunables",
      "ProtectKernelModules",
      "ProtectKernelLogs",
      "ProtectControlGroups",
      "RestrictNamespaces",
      "LockPersonality",
      "RestrictRealtime",
      "RestrictSUIDSGID",
    ];
    for (const key of yes) expect(value(key), key).toBe("yes");
    expect(value("ProtectSystem")).toBe("strict");
    expect(value("ReadWritePaths")).toBe("/opt/agent-gate/data");
    expect(value("RestrictAddressFamilies")).toBe("AF_INET AF_INET6 AF_UNIX");
    expect(value("SystemCallArchitectures")).toBe("native");
    expect(service.get("CapabilityBoundingSet")).toEqual([""]);
    expect(service.has("MemoryDenyWriteExecute")).toBe(false);
    expect(service.has("DynamicUser")).toBe(false);
  });

  it("passes systemd-analyze verify where systemd is installed", () => {
    const which = spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" });
    if (which.status !== 0) {
      console.warn("systemd-analyze is not installed: the unit's syntax was checked above, not by systemd");
      return;
    }
    const verify = spawnSync("systemd-analyze", ["verify", UNIT], { encoding: "utf8" });
    expect(verify.status, `${verify.stdout}${verify.stderr}`).toBe(0);
    // Unknown keys and bad values are warnings, not a failing status.
    expect(`${verify.stdout}${verify.stderr}`.trim()).toBe("");
  });
});

/** A built checkout in miniature, with what must never be installed: the demo database, an env file, history. */
function fakeCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-checkout-"));
  const files: Record<string, string> = {
    ".next/BUILD_ID": "build-1",
    "dist/server.mjs": "// server",
    "scripts/start.sh": "#!/bin/sh",
    "node_modules/.bin/node": "#!/bin/sh",
    "package.json": "{}",
    "deploy/agent-gate.service": fs.readFileSync(UNIT, "utf8"),
    "deploy/install.sh": fs.readFileSync(path.join(ROOT, "deploy", "install.sh"), "utf8"),
    "data/app.db": "demo members, password demo-password",
    "data/app.db-wal": "log",
    ".env": "AUTH_SECRET=from-a-developer",
    ".env.local": "x=1",
    ".git/HEAD": "ref: refs/heads/main",
    ".tmp/template.db": "test template",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("deploy/install.sh, run in a temporary root (docs/systemd.md's file steps)", () => {
  // As root (CI) the service account is nobody, so the ownership it is given is visibly not root's.
  const asRoot = process.getuid?.() === 0;
  const me = os.userInfo().username;
  const serviceUser = asRoot ? "nobody" : me;
  const uidOf = (name: string): number => Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());

  function install(checkout: string, destdir: string) {
    return spawnSync("sh", [path.join(checkout, "deploy", "install.sh")], {
      encoding: "utf8",
      env: { ...process.env, DESTDIR: destdir, SERVICE_USER: serviceUser, APP_OWNER: asRoot ? "root" : me },
    });
  }

  it("copies the build but no database, env file, history or test leftovers; owns data/ recursively; writes the env file once", () => {
    const checkout = fakeCheckout();
    const destdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-root-"));
    try {
      const app = path.join(destdir, "opt", "agent-gate");
      // An earlier install's data, one file of it written by root (e.g. a command run as root made the log).
      fs.mkdirSync(path.join(app, "data"), { recursive: true });
      fs.writeFileSync(path.join(app, "data", "app.db"), "live members");
      fs.writeFileSync(path.join(app, "data", "app.db-wal"), "live log");
      fs.writeFileSync(path.join(app, "stale-chunk.js"), "from the last build");
      const run = install(checkout, destdir);
      expect(run.status, run.stderr).toBe(0);
      for (const kept of [".next/BUILD_ID", "dist/server.mjs", "scripts/start.sh", "node_modules/.bin/node", "package.json"])
        expect(fs.existsSync(path.join(app, kept)), kept).toBe(true);
      for (const never of [".env", ".env.local", ".git", ".tmp", "stale-chunk.js"]) expect(fs.existsSync(path.join(app, never)), never).toBe(false);
      // The live database stays as it was; the checkout's demo database was not copied over it.
      expect(fs.readFileSync(path.join(app, "data", "app.db"), "utf8")).toBe("live members");
      expect(fs.readFileSync(path.join(app, "data", "app.db-wal"), "utf8")).toBe("live log");
      for (const entry of ["data", "data/app.db", "data/app.db-wal"]) expect(fs.statSync(path.join(app, entry)).uid, entry).toBe(uidOf(serviceUser));
      expect(fs.statSync(path.join(app, "dist", "server.mjs")).uid).toBe(asRoot ? 0 : uidOf(me));
      const env = path.join(destdir, "etc", "agent-gate", "env");
      expect(fs.statSync(env).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(path.join(destdir, "etc", "systemd", "system", "agent-gate.service"), "utf8")).toBe(fs.readFileSync(UNIT, "utf8"));
      // A second install keeps the operator's env file.
      fs.writeFileSync(env, "BASE_URL=https://gate.example.com\n");
      expect(install(checkout, destdir).status).toBe(0);
      expect(fs.readFileSync(env, "utf8")).toBe("BASE_URL=https://gate.example.com\n");
    } finally {
      fs.rmSync(checkout, { recursive: true, force: true });
      fs.rmSync(destdir, { recursive: true, force: true });
    }
  });

  it("refuses a checkout that was not built", () => {
    const checkout = fakeCheckout();
    const destdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-root-"));
    try {
      fs.rmSync(path.join(checkout, ".next"), { recursive: true });
      const run = install(checkout, destdir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("npm run build");
      expect(fs.existsSync(path.join(destdir, "opt"))).toBe(false);
    } finally {
      fs.rmSync(checkout, { recursive: true, force: true });
      fs.rmSync(destdir, { recursive: true, force: true });
    }
  });
});

describe("the env file as systemd reads it (npm run config -- --env-file)", () => {
  it("takes NAME=value lines as systemd does: unquoted JSON as written, quoted values, comments, continuations", () => {
    const text = [
      "# the deployment's settings",
      "; another comment",
      "BASE_URL=https://gate.example.com",
      'SIGNING_KEYS=[{"kty":"OKP","crv":"Ed25519","x":"abc","d":"def"}]',
      "AUTH_SECRET='a secret with $dollars and \\backslashes'",
      'LOG_LEVEL="warn"',
      'QUOTED="a \\"quote\\" and a \\\\ backslash"',
      "  TRUSTED_PROXY = loopback  ",
      "CONTINUED=one\\",
      "two",
      "not an assignment",
      "",
    ].join("\n");
    expect(parseEnvironmentFile(text)).toEqual({
      BASE_URL: "https://gate.example.com",
      SIGNING_KEYS: '[{"kty":"OKP","crv":"Ed25519","x":"abc","d":"def"}]',
      AUTH_SECRET: "a secret with $dollars and \\backslashes",
      LOG_LEVEL: "warn",
      QUOTED: 'a "quote" and a \\ backslash',
      TRUSTED_PROXY: "loopback",
      CONTINUED: "onetwo",
    });
  });
});
