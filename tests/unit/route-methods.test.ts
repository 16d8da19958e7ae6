// Every route module answers every method itself: unsupported ones get the JSON 405 with Allow
// (CONTRACT.md §2) instead of Next's empty default. HEAD may be left to Next, which serves it from GET.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const APP = path.resolve(__dirname, "../../app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function routeFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

function exportsMethod(source: string, method: string): boolean {
  return new RegExp(`export (const|async function|function) ${method}\\b|\\bas ${method}\\b|export const \\{[^}]*\\b${method}\\b[^}]*\\}`).test(source);
}

describe("route modules", () => {
  const files = routeFiles(APP);
  it("exist", () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    it(`${path.relative(APP, file)} handles every method itself`, () => {
      const source = fs.readFileSync(file, "utf8");
      const missing = METHODS.filter((m) => !exportsMethod(source, m));
      expect(missing).toEqual([]);
      if (!exportsMethod(source, "GET")) expect(exportsMethod(source, "HEAD"), "a route without GET must refuse HEAD itself").toBe(true);
    });
  }
});
