// Issue 43: configuration has one reader. The app's code (server.ts, proxy.ts, instrumentation.ts, next.config.ts,
// app/ and lib/) touches process.env only in lib/config, which builds the one frozen configuration getConfig()
// returns; and tests build configurations (tests/support/config.ts) instead of writing process.env.
//
// Not covered: scripts/ and the prisma configs are command-line tools run by npm, tsx or the Prisma CLI outside the
// app (test-all.ts reads the test harness's TEST_* variables, sqlite-addon.ts runs at postinstall before the app can
// load, the prisma configs hand DATABASE_URL to Prisma's CLI); those that need the app's configuration read it
// through lib/config (demo.ts, keys-export.ts). tests/e2e hands the server's URLs to Playwright's workers through
// their environment (a process boundary, as an HTTP test starting a server with an environment is).
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function filesUnder(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs
    .readdirSync(full, { recursive: true, encoding: "utf8" })
    .filter((file) => SOURCE.test(file) && !file.includes("node_modules") && !file.includes("generated/"))
    .map((file) => path.join(dir, file));
}

const isProcess = (node: ts.Node): boolean => ts.isIdentifier(node) && node.text === "process";

/** `process.env` or `process["env"]`. */
function isProcessEnv(node: ts.Node): node is ts.PropertyAccessExpression | ts.ElementAccessExpression {
  if (ts.isPropertyAccessExpression(node)) return isProcess(node.expression) && node.name.text === "env";
  if (ts.isElementAccessExpression(node)) return isProcess(node.expression) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === "env";
  return false;
}

interface Use {
  at: string;
  /** The expression: `process.env.PORT`, `const { env } = process`, `import … from "node:process"`. */
  text: string;
  /** An assignment, a delete or vi.stubEnv. */
  write: boolean;
}

/** Every use of the environment in a file: reads, writes, destructuring and imports of node:process. */
function environmentUses(file: string): Use[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const uses: Use[] = [];
  const add = (node: ts.Node, write: boolean, shown: ts.Node = node) =>
    uses.push({ at: `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`, text: shown.getText(source), write });
  const visit = (node: ts.Node): void => {
    if (isProcessEnv(node)) {
      // The whole member expression (process.env.PORT), and whether it is written.
      let target: ts.Node = node;
      while ((ts.isPropertyAccessExpression(target.parent) || ts.isElementAccessExpression(target.parent)) && target.parent.expression === target) target = target.parent;
      const parent = target.parent;
      const write =
        (ts.isBinaryExpression(parent) &&
          parent.left === target &&
          parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
          parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment) ||
        ts.isDeleteExpression(parent) ||
        (ts.isCallExpression(parent) && /^Object\.(assign|defineProperty)$/.test(parent.expression.getText(source)) && parent.arguments[0] === target);
      add(node, write, target);
    } else if (ts.isVariableDeclaration(node) && node.initializer && isProcess(node.initializer) && ts.isObjectBindingPattern(node.name)) {
      if (node.name.elements.some((element) => (element.propertyName ?? element.name).getText(source) === "env")) add(node, false);
    } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?process$/.test(node.moduleSpecifier.text)) {
      add(node, false);
    } else if (ts.isCallExpression(node) && /^vi\.(stubEnv|unstubAllEnvs)$/.test(node.expression.getText(source))) {
      add(node, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** The app's code: what `npm start`, `next start` and Vercel run. */
const APP_FILES = ["server.ts", "proxy.ts", "instrumentation.ts", "next.config.ts", ...filesUnder("app"), ...filesUnder("lib")];

/**
 * instrumentation.ts must test `process.env.NEXT_RUNTIME` literally in register() (Next's documented hook): Next
 * replaces the expression with its runtime's name when it compiles the file, so nothing reads it at run time.
 */
const COMPILE_TIME = new Set(["instrumentation.ts process.env.NEXT_RUNTIME"]);

describe("one reader of configuration (issue 43)", () => {
  it("finds what it looks for (the scan sees reads, writes, destructuring and node:process)", () => {
    const dir = path.join(ROOT, ".tmp", "config-reader");
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(".tmp", "config-reader", "probe.ts");
    fs.writeFileSync(
      path.join(ROOT, probe),
      'import { env } from "node:process";\nconst a = process.env.PORT;\nconst b = process["env"]["HOSTNAME"];\nconst { env: e } = process;\nprocess.env.NEXTAUTH_URL = "x";\ndelete process.env.X;\n',
    );
    const uses = environmentUses(probe);
    expect(uses.map((use) => [use.text, use.write])).toEqual([
      ['import { env } from "node:process";', false],
      ["process.env.PORT", false],
      ['process["env"]["HOSTNAME"]', false],
      ["{ env: e } = process", false],
      ["process.env.NEXTAUTH_URL", true],
      ["process.env.X", true],
    ]);
  });

  it("process.env is touched only in lib/config: server.ts, proxy.ts, instrumentation.ts, next.config.ts, app/ and lib/ go through getConfig()", () => {
    expect(APP_FILES.length).toBeGreaterThan(100);
    const outside = APP_FILES.filter((file) => !file.startsWith(`lib${path.sep}config${path.sep}`))
      .flatMap(environmentUses)
      .filter((use) => !COMPILE_TIME.has(`${use.at.replace(/:\d+$/, "")} ${use.text}`))
      .map((use) => `${use.at} ${use.text}`);
    expect(outside).toEqual([]);
  });

  it("the one write to process.env is lib/config's, once at start (next-auth's NEXTAUTH_URL)", () => {
    const writes = filesUnder("lib/config")
      .flatMap(environmentUses)
      .filter((use) => use.write)
      .map((use) => use.text);
    expect(writes).toEqual(["process.env.NEXTAUTH_URL"]);
  });

  it("tests build configurations instead of writing process.env (tests/unit, tests/http, tests/support)", () => {
    const writes = ["tests/unit", "tests/http", "tests/support"]
      .flatMap(filesUnder)
      .flatMap(environmentUses)
      .filter((use) => use.write)
      .map((use) => `${use.at} ${use.text}`);
    expect(writes).toEqual([]);
  });
});
