// fs with a globSync stand-in: the conformance CLI imports fs.globSync (Node >= 22) but uses it only
// for its tier-check report, which server mode never runs.
export * from "node:fs";
import fs from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync is not available on this Node version");
}
