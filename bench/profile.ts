// Summarises a V8 CPU profile (from `npm run bench -- --cpu-prof`): the functions with the most self
// time, and the time spent under each source file (inclusive, by the first frame of that file on the stack).
//   npx tsx bench/profile.ts bench/results/profiles/<file>.cpuprofile [--top 30] [--match lib/]
import fs from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args[0];
if (!file) throw new Error("usage: tsx bench/profile.ts <file.cpuprofile> [--top N] [--match text]");
const top = Number(args[args.indexOf("--top") + 1] ?? 30) || 30;
const matchIndex = args.indexOf("--match");
const match = matchIndex === -1 ? null : args[matchIndex + 1]!;
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const shortUrl = (url: string): string => url.replace(/^file:\/\//, "").replace(/.*\/(node_modules|\.next)\//, "$1/");
const label = (n: ProfileNode): string => `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    const key = match ? (shortUrl(n.callFrame.url).includes(match) ? label(n) : null) : shortUrl(n.callFrame.url) || n.callFrame.functionName;
    if (key && !seen.has(key)) {
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
    }
  }
});

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * us) / total).toFixed(1).padStart(6)}%  ${key}`);
};
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
print("self time", self);
print(match ? `inclusive, frames matching ${match}` : "inclusive, by file", inclusive);
