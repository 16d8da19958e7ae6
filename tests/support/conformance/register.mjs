// node --import this file before running @modelcontextprotocol/conformance on Node 20.
import fs from "node:fs";
import { register } from "node:module";
if (typeof fs.globSync !== "function") register("./hooks.mjs", import.meta.url);
