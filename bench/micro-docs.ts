// The docs search's own inverted index (lib/docs/inverted-index.ts) against MiniSearch 7.2, the library it
// replaced, side by side in one process (issue 33 item 4: the layer's alternative is a library, not a switch).
// The corpus is the bench's: the project's content/docs plus the 500 generated documents (bench/documents.ts),
// split into sections by lib/docs/corpus.ts as the server does; MiniSearch is configured as
// bench/minisearch.ts configures it for tests/unit/docs-index.test.ts, which checks that both rank every question alike.
//
// Each round builds one index, keeps it alone in the heap and measures: its build time, the heap it retains
// (heapUsed after a full collection, before and after the build; and apart, the array buffers outside the
// V8 heap, which hold the inverted index's postings), the time of a full mark-compact with it
// alive (the layer's reason: MiniSearch's radix tree of Maps is scanned by every mark-compact), and the
// searches of /ask's questions, numbered as in the bench's "all questions new" scenario, through the index's
// own search function (no answer cache). Sides alternate, the first side swapping every round; the table
// gives the median over rounds. Wall time on one thread: compare runs on the same machine only.
//
// Usage: npx tsx --expose-gc bench/micro-docs.ts [--quick] [--rounds N]
//   (without --expose-gc the collector is reached through V8's flag at run time, as the docs-index test does)
import MiniSearch from "minisearch";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { loadCorpus } from "@/lib/docs/corpus";
import { buildInvertedIndex, searchInvertedIndex, type InvertedIndex } from "@/lib/docs/inverted-index";
import { boundedQuery, SEARCH_OPTIONS, searchTerm } from "@/lib/docs/search";
import { ASK_QUESTIONS, benchDocuments, prng } from "./documents";
import { miniSearchOf, type Section } from "./minisearch";
import { median } from "./rows";

const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const roundsAt = args.indexOf("--rounds");
const ROUNDS = roundsAt === -1 ? (QUICK ? 2 : 7) : Number(args[roundsAt + 1]);
/** Questions searched per side and round (each a new numbered variant), after WARMUP unmeasured ones. */
const SEARCHES = QUICK ? 300 : 1500;
const WARMUP = QUICK ? 50 : 200;
/** Full collections timed per side and round (the median is kept). */
const COLLECTIONS = QUICK ? 3 : 7;

/** The collector: --expose-gc's global, else a new context's after setting the flag (the heap is the isolate's either way). */
const collect: () => void =
  globalThis.gc ??
  (() => {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  })();

/** One side: builds its index; `search` answers the number of matching sections (so no work is optimised away). */
interface Side<I> {
  name: string;
  build(): I;
  search(index: I, query: string): number;
}

interface RoundFigures {
  buildMs: number;
  heapBytes: number;
  /** Outside the V8 heap, which a collection does not scan: the inverted index's typed arrays. */
  bufferBytes: number;
  markCompactMs: number;
  searchUs: number;
  p99Us: number;
}

const percentile = (values: Float64Array, p: number): number => {
  const sorted = values.slice().sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

function timeCollections(): number {
  const times: number[] = [];
  for (let i = 0; i < COLLECTIONS; i++) {
    const start = process.hrtime.bigint();
    collect();
    times.push(elapsedMs(start));
  }
  return median(times);
}

/** Question n, numbered as the "all questions new" scenario numbers them (a round asks its own range of n). */
const question = (n: number): string => boundedQuery(`${ASK_QUESTIONS[n % ASK_QUESTIONS.length]} v${n}`);

function measure<I>(side: Side<I>, round: number): RoundFigures {
  collect();
  collect();
  const before = process.memoryUsage();
  const buildStart = process.hrtime.bigint();
  // Kept in this frame until the end of the function: it is what the heap and the collections hold.
  const index = side.build();
  const buildMs = elapsedMs(buildStart);
  collect();
  collect();
  const after = process.memoryUsage();
  const heapBytes = after.heapUsed - before.heapUsed;
  const bufferBytes = after.arrayBuffers - before.arrayBuffers;
  const markCompactMs = timeCollections();

  const first = round * (WARMUP + SEARCHES);
  let matched = 0;
  for (let n = 0; n < WARMUP; n++) matched += side.search(index, question(first + n));
  const durations = new Float64Array(SEARCHES);
  const searchStart = process.hrtime.bigint();
  for (let n = 0; n < SEARCHES; n++) {
    const start = process.hrtime.bigint();
    matched += side.search(index, question(first + WARMUP + n));
    durations[n] = Number(process.hrtime.bigint() - start) / 1000;
  }
  const searchUs = (elapsedMs(searchStart) * 1000) / SEARCHES;
  if (matched === 0) throw new Error(`${side.name}: no question matched anything`);
  return { buildMs, heapBytes, bufferBytes, markCompactMs, searchUs, p99Us: percentile(durations, 99) };
}

/** Both indexes must find the same sections, or the comparison means nothing (the unit test checks the scores too). */
function checkAgreement(index: InvertedIndex, miniSearch: MiniSearch<Section>): void {
  for (let n = 0; n < ASK_QUESTIONS.length * 2; n++) {
    const q = question(n);
    const ours = searchInvertedIndex(index, q, searchTerm, SEARCH_OPTIONS).documents;
    const theirs = miniSearch
      .search(q)
      .map((r) => r.id as number)
      .sort((x, y) => x - y);
    if (ours.length !== theirs.length || ours.some((d, i) => d !== theirs[i])) throw new Error(`the indexes disagree on ${JSON.stringify(q)}`);
  }
}

function main(): void {
  // The bench's CONTENT_DIR (bench/seed.ts writeDocuments): the project's documents and the 500 generated ones.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-micro-docs-"));
  try {
    const own = path.join(process.cwd(), "content", "docs");
    for (const file of fs.readdirSync(own)) if (file.endsWith(".md")) fs.copyFileSync(path.join(own, file), path.join(dir, file));
    for (const [file, markdown] of benchDocuments(500, prng(20261121))) fs.writeFileSync(path.join(dir, file), markdown);
    const corpus = loadCorpus(dir);
    run(
      corpus.docs.length,
      corpus.docs.flatMap((doc) => doc.sections.map((section) => ({ title: doc.title, heading: section.heading, text: section.text }))),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function run(documentCount: number, plain: readonly Omit<Section, "id">[]): void {
  // Both inputs exist before any round, so a side's heap figure is its index alone (buildIndex's fields, in order).
  const fields = plain.map((s) => [s.title, s.heading, s.text]);
  const sections: Section[] = plain.map((s, id) => ({ id, ...s }));

  const ours: Side<InvertedIndex> = {
    name: "inverted index",
    build: () => buildInvertedIndex(fields, 3, searchTerm),
    search: (index, query) => searchInvertedIndex(index, query, searchTerm, SEARCH_OPTIONS).documents.length,
  };
  const theirs: Side<MiniSearch<Section>> = {
    name: "MiniSearch 7.2",
    build: () => miniSearchOf(sections),
    search: (miniSearch, query) => miniSearch.search(query).length,
  };

  checkAgreement(ours.build(), theirs.build());

  console.log(
    `docs search: ${documentCount} documents, ${sections.length} sections; ${ROUNDS} rounds per side, alternating; ` +
      `${SEARCHES} searches per round after ${WARMUP} warm-up ones, ${COLLECTIONS} full collections per round (Node ${process.version})`,
  );
  const figures: { ours: RoundFigures[]; theirs: RoundFigures[]; none: number[] } = { ours: [], theirs: [], none: [] };
  for (let round = 0; round < ROUNDS; round++) {
    collect();
    figures.none.push(timeCollections());
    // ABBA: each side goes first in every other round, so neither always runs on the warmer (or colder) heap.
    const order = round % 2 === 0 ? (["ours", "theirs"] as const) : (["theirs", "ours"] as const);
    for (const which of order) figures[which].push(which === "ours" ? measure(ours, round) : measure(theirs, round));
    const line = (f: RoundFigures): string =>
      `${f.searchUs.toFixed(0)} µs/search, build ${f.buildMs.toFixed(0)} ms, ${(f.heapBytes / 1e6).toFixed(1)} MB, GC ${f.markCompactMs.toFixed(1)} ms`;
    console.log(`round ${round + 1}: ${ours.name} ${line(figures.ours[round]!)} | ${theirs.name} ${line(figures.theirs[round]!)}`);
  }

  const fixed = (digits: number) => (v: number) => v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  // The ratio is the inverted index's advantage: above 1 it is ahead, whichever way the measure points.
  const row = (label: string, pick: (f: RoundFigures) => number, format: (v: number) => string, higherIsBetter = false): string => {
    const a = median(figures.ours.map(pick));
    const b = median(figures.theirs.map(pick));
    return `| ${label} | ${format(a)} | ${format(b)} | ${(higherIsBetter ? a / b : b / a).toFixed(2)}× |`;
  };
  console.log(`\nmedians of ${ROUNDS} rounds; advantage: how many times better the inverted index is (above 1: ahead)\n`);
  console.log(`| measure | ${ours.name} | ${theirs.name} | advantage |`);
  console.log("|---|---:|---:|---:|");
  console.log(row("searches per second", (f) => 1e6 / f.searchUs, fixed(0), true));
  console.log(row("µs per search (mean)", (f) => f.searchUs, fixed(0)));
  console.log(row("p99 µs per search", (f) => f.p99Us, fixed(0)));
  console.log(row("build ms", (f) => f.buildMs, fixed(0)));
  console.log(row("heap retained MB", (f) => f.heapBytes / 1e6, fixed(1)));
  // MiniSearch keeps no array buffers: no ratio for this line alone.
  console.log(row("array buffers retained MB", (f) => f.bufferBytes / 1e6, fixed(1)).replace(/[^|]+\|$/, " — |"));
  console.log(row("heap and array buffers MB", (f) => (f.heapBytes + f.bufferBytes) / 1e6, fixed(1)));
  console.log(row("full mark-compact ms", (f) => f.markCompactMs, fixed(1)));
  // The rest of the heap (tsx, the corpus, the inputs) costs every collection alike: what each index adds to it.
  const added = (which: "ours" | "theirs"): string => fixed(1)(median(figures[which].map((f, round) => f.markCompactMs - figures.none[round]!)));
  console.log(`| mark-compact ms added to neither's ${fixed(1)(median(figures.none))} | ${added("ours")} | ${added("theirs")} | — |`);
}

main();
