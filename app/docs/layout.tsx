import Link from "next/link";
import type { ReactNode } from "react";
import { compareKinds, getCorpus, kindLabel } from "@/lib/docs/corpus";
import "./docs.css";

// The documentation shell: the list of every document by kind is a sidebar on a desktop and follows the
// document on a phone, so the text comes first on a small screen.
export default function DocsLayout({ children }: { children: ReactNode }) {
  const corpus = getCorpus();
  const kinds = [...corpus.kinds].sort(compareKinds);
  return (
    <div className="docs-shell">
      <aside className="docs-nav">
        <nav aria-label="All documents">
          <p className="docs-nav-home">
            <Link href="/docs">Documentation index</Link>
          </p>
          {kinds.map((kind) => (
            <section key={kind}>
              <h2>{kindLabel(kind)}</h2>
              <ul>
                {corpus.docs
                  .filter((d) => d.kind === kind)
                  .map((d) => (
                    <li key={d.slug}>
                      <Link href={`/docs/${d.slug}`}>{d.title}</Link>
                    </li>
                  ))}
              </ul>
            </section>
          ))}
        </nav>
      </aside>
      <div className="docs-content">{children}</div>
    </div>
  );
}
