import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getCorpus, getDoc, kindLabel } from "@/lib/docs/corpus";
import { renderMarkdown } from "@/lib/docs/render";

type Params = Promise<{ slug: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const doc = getDoc((await params).slug);
  if (!doc) return { title: "Document not found" };
  return { title: doc.title, description: doc.summary, alternates: { types: { "text/markdown": `/docs/${doc.slug}.md` } } };
}

export default async function DocPage({ params }: { params: Params }) {
  const { slug } = await params;
  const doc = getDoc(slug);
  if (!doc) notFound();
  const { docs } = getCorpus();
  const position = docs.indexOf(doc);
  const previous = position > 0 ? docs[position - 1] : undefined;
  const next = position < docs.length - 1 ? docs[position + 1] : undefined;
  const rendered = renderMarkdown(doc.body);
  return (
    <article className="doc">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/docs">Docs</Link> <span aria-hidden="true">›</span> {kindLabel(doc.kind)}
      </nav>
      <h1>{doc.title}</h1>
      <p className="doc-summary">{doc.summary}</p>
      <p className="doc-meta muted">
        Updated <time dateTime={doc.updated}>{doc.updated}</time> · <a href={`/docs/${doc.slug}.md`}>View as markdown</a>
      </p>
      {rendered.headings.length > 2 ? (
        <nav aria-label="On this page" className="toc">
          <h2>On this page</h2>
          <ul>
            {rendered.headings
              .filter((h) => h.depth === 2)
              .map((h) => (
                <li key={h.anchor}>
                  <a href={`#${h.anchor}`}>{h.text}</a>
                </li>
              ))}
          </ul>
        </nav>
      ) : null}
      {/* The HTML comes from lib/docs/render.ts, which escapes raw HTML and drops unsafe links. */}
      <div className="doc-body" dangerouslySetInnerHTML={{ __html: rendered.html }} />
      <nav aria-label="Previous and next" className="pager">
        {previous ? (
          <Link href={`/docs/${previous.slug}`} rel="prev">
            ← {previous.title}
          </Link>
        ) : (
          <span />
        )}
        {next ? (
          <Link href={`/docs/${next.slug}`} rel="next">
            {next.title} →
          </Link>
        ) : (
          <span />
        )}
      </nav>
    </article>
  );
}
