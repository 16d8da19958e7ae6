// The app's source as TypeScript's own scanner reads it, for the tests that check a rule over all of it
// (tests/unit/one-registry.test.ts, tests/unit/one-log-format.test.ts): comments and strings that merely name
// something do not count, and no spelling of an access escapes.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export const ROOT = path.resolve(__dirname, "../..");
/** The entry files at the root: npm start's server, Next's proxy, instrumentation and configuration. */
export const ENTRY_FILES = ["server.ts", "proxy.ts", "instrumentation.ts", "next.config.ts"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    // lib/generated is Prisma's generated client, not ours.
    if (entry.isDirectory()) return relative === path.join("lib", "generated") ? [] : sourceFiles(relative);
    return /\.(m?[jt]s|tsx)$/.test(entry.name) ? [relative] : [];
  });
}

/** What the running service is made of: lib/ (not lib/generated), app/ and the entry files, relative to the root. */
export const APP_SOURCE = [...sourceFiles("lib"), ...sourceFiles("app"), ...ENTRY_FILES.filter((file) => fs.existsSync(path.join(ROOT, file)))];

export interface Token {
  kind: ts.SyntaxKind;
  text: string;
  line: number;
}

/** The tokens of `file` (relative to the root, or absolute), comments and whitespace left out (template literals are scanned inside their substitutions). */
export function tokens(file: string): Token[] {
  const text = fs.readFileSync(path.resolve(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Token[] = [];
  const visit = (node: ts.Node): void => {
    if (node.getChildCount(source) === 0) {
      found.push({ kind: node.kind, text: node.getText(source), line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
      return;
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return found;
}

/** Whether the token before `index` makes it a member name (`x.name`, `x?.name`), not a variable of its own. */
export function isMemberName(list: readonly Token[], index: number): boolean {
  const before = list[index - 1]?.kind;
  return before === ts.SyntaxKind.DotToken || before === ts.SyntaxKind.QuestionDotToken;
}
