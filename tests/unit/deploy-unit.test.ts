// Issue 32 item 5: deploy/agent-gate.service runs `npm start`'s script under systemd, restarted whenever it
// stops, as its own user, with a memory ceiling the start script sizes the heap from, and hardened.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
