// The bench's generated documentation: the same 500 documents in every run (a seeded PRNG), so the
// search index the server builds, and the one tests/unit/docs-index.test.ts builds, have the same shape;
// and the questions the bench asks of it.

/** Deterministic PRNG (mulberry32) so every run has the same data shape. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY = (
  "agent account owner delegation token access scope assertion claim attempt registration approve deny revoke poll interval " +
  "expiry minutes seconds resource endpoint request response header bearer challenge error member profile community certificate " +
  "verification search documentation answer batch item operation limit window rate client address proxy forwarded signing key " +
  "rotation public private release mode discovery metadata issuer audience subject signature browser page code user human " +
  "service instance database transaction audit event cache statistics count lookup slug display name tool server stateless " +
  "session json markdown query excerpt score catalog card skill task message artifact protocol version stream notification"
).split(" ");
const KINDS = ["guide", "docs", "reference", "policy"] as const;

/** Document n of the bench corpus; call with n = 1, 2, … in order, with one `random` for the whole corpus. */
export function benchDocumentMarkdown(n: number, random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sentence = (): string => {
    const words = Array.from({ length: 8 + Math.floor(random() * 14) }, () => pick(VOCABULARY));
    const text = words.join(" ");
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = (): string => Array.from({ length: 3 + Math.floor(random() * 4) }, sentence).join(" ");
  const topic = `${pick(VOCABULARY)} ${pick(VOCABULARY)}`;
  const title = `${topic.charAt(0).toUpperCase()}${topic.slice(1)} handbook ${n}`;
  const sections: string[] = [paragraph()];
  const sectionCount = 3 + Math.floor(random() * 5);
  for (let s = 0; s < sectionCount; s++) {
    sections.push(`## ${pick(VOCABULARY)} ${pick(VOCABULARY)} ${s + 1}`, paragraph(), paragraph());
    if (s % 3 === 1) sections.push("```bash", `curl -s https://gate.example.com/${pick(VOCABULARY)}?${pick(VOCABULARY)}=${n}`, "```");
  }
  const front = [
    "---",
    `title: "${title}"`,
    `slug: "bench-doc-${String(n).padStart(3, "0")}"`,
    `kind: "${KINDS[n % KINDS.length]}"`,
    `summary: "${sentence()}"`,
    `updated: "2026-${String(1 + (n % 12)).padStart(2, "0")}-${String(1 + (n % 28)).padStart(2, "0")}"`,
    `order: ${100 + n}`,
    "---",
    "",
  ];
  return `${front.join("\n")}${sections.join("\n\n")}\n`;
}

/** The bench's 500 documents, file name → markdown. */
export function benchDocuments(count: number, random: () => number): Map<string, string> {
  const files = new Map<string, string>();
  for (let n = 1; n <= count; n++) files.set(`bench-doc-${String(n).padStart(3, "0")}.md`, benchDocumentMarkdown(n, random));
  return files;
}

/** The questions the /ask, batch and docs scenarios ask (bench/run.ts; bench/micro-docs.ts asks them too). */
export const ASK_QUESTIONS = [
  "how do I revoke an access token",
  "what happens when the claim attempt expires",
  "polling interval slow_down",
  "verify a certificate",
  "how long is an identity assertion valid",
  "rate limit of the batch endpoint",
  "register an agent name",
  "which scopes exist",
  "signing key rotation",
  "community member count cache",
  "delegation approval user code",
  "markdown version of a page",
];
