// Prints the V8 heap flags for npm start (scripts/start.sh puts them on node's command line): sized from the memory
// this process is given (lib/startup/heap.ts says why). Bundled into dist/heap-flags.mjs by npm run build.
import os from "node:os";
import { heapFlags } from "@/lib/startup/heap";

process.stdout.write(heapFlags({ constrainedBytes: process.constrainedMemory?.(), totalBytes: os.totalmem(), nodeOptions: process.env.NODE_OPTIONS }).join(" "));
