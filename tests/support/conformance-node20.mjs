// Lets `@modelcontextprotocol/conformance` 0.1.16 load on Node 20: its bundle imports `globSync` from
// "fs" (Node 22+) for the tier-check command only. This module-resolution hook hands that one package a
// copy of "fs" with a stub globSync; server mode never calls it.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
const shim = "data:text/javascript," + encodeURIComponent('import fs from "node:fs"; export * from "node:fs"; export default fs; export function globSync() { throw new Error("globSync needs Node 22"); }');
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}`),
);
