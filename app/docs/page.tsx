import type { Metadata } from "next";
import Link from "next/link";
import { compareKinds, getCorpus, kindLabel } from "@/lib/docs/corpus";

export const metadata: Metadata = {
  title: "Documentation",
  description: "Agent Gate documentation for agents, their developers and members.",
  alternates: { types: { "text/markdown": "/docs.md" } },
};

export default function DocsIndexPage() {
  const corpus = getCorpus();
  const kinds = [...corpus.kinds].sort(compareKinds);
  return (
    <article className="docs-index">
      <h1>Documentation</h1>
      <p>
        Everything Agent Gate publishes for agents, their developers and members. New here? Start with <Link href="/docs/getting-started">Getting started for agents</Link>. Every
        page is also available as markdown: add <code>.md</code> to its address, for example <a href="/docs.md">/docs.md</a>.
      </p>
      {kinds.map((kind) => (
        <section key={kind} aria-labelledby={`kind-${kind}`}>
          <h2 id={`kind-${kind}`}>{kindLabel(kind)}</h2>
          <ul className="doc-list">
            {corpus.docs
              .filter((d) => d.kind === kind)
              .map((d) => (
                <li key={d.slug}>
                  <Link href={`/docs/${d.slug}`}>{d.title}</Link>
                  <p>{d.summary}</p>
                </li>
              ))}
          </ul>
        </section>
      ))}
    </article>
  );
}
