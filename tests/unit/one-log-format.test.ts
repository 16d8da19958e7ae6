// Issue 51 item 5: one log format. Every line the running service writes is a pino JSON line with a `type`
// (lib/observability/log.ts): no module of the app calls `console` (its text lines would sit between the JSON ones), and
// none writes to the process's stdout or stderr but the logger itself (which, under npm start, also turns what Next
// and the libraries write through `console` into JSON lines: routeConsoleToLog). Checked with TypeScript's scanner
// (tests/support/source-scan.ts), so a comment or a string that names them does not count. The command-line scripts
// (scripts/) print their own output and are not part of the service. tests/http/log-format.test.ts reads what a
// running server writes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { APP_SOURCE, isMemberName, tokens, type Token } from "../support/source-scan";

/** The one module that writes the process's output: the logger, its stdout destination and the console's routing. */
const LOGGER = path.join("lib", "observability", "log.ts");

/** Whether the identifier at `index` names a member of an object literal (`{ console: 1 }`), not a variable. */
function isPropertyKey(list: readonly Token[], index: number): boolean {
  const before = list[index - 1]?.kind;
  return list[index + 1]?.kind === ts.SyntaxKind.ColonToken && (before === ts.SyntaxKind.OpenBraceToken || before === ts.SyntaxKind.CommaToken);
}

/**
 * `file:line` of each way around the logger: `console` as a variable (its methods, `console["log"]`, a destructured
 * `const { log } = console`), and `process.stdout` or `process.stderr`; none in the logger's own module, which routes them.
 */
function outputBesideTheLog(file: string): string[] {
  if (file === LOGGER) return [];
  const list = tokens(file);
  const found = list.flatMap((token, i) => {
    if (token.kind !== ts.SyntaxKind.Identifier || isMemberName(list, i)) return [];
    if (token.text === "console" && !isPropertyKey(list, i)) return [`${file}:${token.line}: console`];
    const stream = list[i + 2]?.text;
    if (token.text === "process" && list[i + 1]?.kind === ts.SyntaxKind.DotToken && (stream === "stdout" || stream === "stderr")) {
      return [`${file}:${token.line}: process.${stream}`];
    }
    return [];
  });
  return [...new Set(found)];
}

const fixtures = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-log-format-"));
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

function fixture(name: string, text: string): string {
  const file = path.join(fixtures, name);
  fs.writeFileSync(file, text);
  return file;
}

describe("one log format", () => {
  it("scans the service's source: lib/, app/ and the entry files, the logger included", () => {
    expect(APP_SOURCE).toContain(LOGGER);
    for (const entry of ["server.ts", "proxy.ts", "instrumentation.ts"]) expect(APP_SOURCE).toContain(entry);
    expect(APP_SOURCE.some((file) => file.startsWith(`app${path.sep}`))).toBe(true);
    expect(APP_SOURCE.some((file) => file.startsWith(`scripts${path.sep}`))).toBe(false);
  });

  it("finds every spelling of a console call or a direct write, and not a mention in a comment or a string", () => {
    const file = fixture(
      "spellings.ts",
      [
        'console.error("a");',
        'console["log"]("b");',
        "const { warn } = console;",
        'process.stdout.write("c\\n");',
        "process.stderr.write(`d`);",
        "// console.log and process.stdout.write in a comment",
        'const text = "console.log(x)";',
        "const logger = { console: 1 }.console;",
      ].join("\n"),
    );
    expect(outputBesideTheLog(file).map((use) => use.slice(file.length + 1))).toEqual(["1: console", "2: console", "3: console", "4: process.stdout", "5: process.stderr"]);
  });

  it("finds no console call in the service and no write to stdout or stderr beside the logger's", () => {
    expect(APP_SOURCE.flatMap(outputBesideTheLog), "log through lib/observability/log.ts (logger(), errorLog(), startLogger())").toEqual([]);
  });
});
