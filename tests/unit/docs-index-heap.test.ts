// The heap the docs search's inverted index keeps (lib/docs/inverted-index: its postings live in array buffers),
// against MiniSearch 7.2's for the bench's 500 documents. A file of its own, in a process of its own
// (vitest.config.mts): it sets V8 flags and measures the process's heap, which other files' garbage would distort.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { expect, it } from "vitest";
import { benchDocuments, prng } from "@/bench/documents";
import { miniSearchOf } from "@/bench/minisearch";
import { loadCorpus } from "@/lib/docs/corpus";
import { buildInvertedIndex } from "@/lib/docs/inverted-index";
import { searchTerm } from "@/lib/docs/search";

// With V8's optimizing compilers on, about one build in four counted 6.2 MB more old space while its index was alive,
// that no object in a heap snapshot held and that went when the index did; with only the interpreter it never
// appeared (60 builds). It made the bound fail by chance, so the heap is measured with only the interpreter.
v8.setFlagsFromString("--expose-gc");
v8.setFlagsFromString("--no-maglev");
v8.setFlagsFromString("--no-turbofan");
const collect = vm.runInNewContext("gc") as () => void;

function heapUsedAfterCollection(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/** What `build`'s result keeps: the heap with it alive, less the heap once it is dropped (the code it ran is in both). */
function heapKeptBy(build: () => object): number {
  const alive = [build()];
  // No expect() on the result: the assertion library can hold on to the last value it was given.
  if (!alive[0]) throw new Error("the build returned nothing");
  const withIt = heapUsedAfterCollection();
  alive.length = 0;
  return withIt - heapUsedAfterCollection();
}

it("is a small fraction of MiniSearch's for the bench's 500 documents", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-corpus-"));
  for (const [file, markdown] of benchDocuments(500, prng(20261121))) fs.writeFileSync(path.join(dir, file), markdown);
  const sections = loadCorpus(dir).docs.flatMap((doc) => doc.sections.map((section) => [doc.title, section.heading, section.text]));
  fs.rmSync(dir, { recursive: true });
  const theirHeap = heapKeptBy(() => miniSearchOf(sections.map(([title, heading, text], id) => ({ id, title: title!, heading: heading!, text: text! }))));
  // The least of three: a build may still leave a little of its own garbage to a later collection.
  const ourHeap = Math.min(...[1, 2, 3].map(() => heapKeptBy(() => buildInvertedIndex(sections, 3, searchTerm))));
  expect(theirHeap).toBeGreaterThan(8_000_000);
  expect(ourHeap).toBeLessThan(theirHeap / 10);
});
