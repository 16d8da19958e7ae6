// Markdown → HTML for the docs pages. The corpus is ours, but it is rendered as if it were not:
// raw HTML is shown as text, and only http(s), mailto and same-site links survive.
import { Marked, type Tokens } from "marked";
import { headingAnchor } from "./corpus";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A link target we are willing to emit: same-site paths, fragments, http(s) and mailto. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  if (/^(\/(?!\/)|#|\.\.?\/)/.test(trimmed)) return trimmed;
  if (/^(https?:|mailto:)/i.test(trimmed)) return trimmed;
  return null;
}

export interface RenderedDoc {
  html: string;
  /** Level-2 and level-3 headings, for the "On this page" list. */
  headings: { depth: number; text: string; anchor: string }[];
}

export function renderMarkdown(markdown: string): RenderedDoc {
  const headings: RenderedDoc["headings"] = [];
  const used = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: {
      html({ text }: Tokens.HTML | Tokens.Tag): string {
        // A comment (such as the `<!-- not-run: … -->` marker of DEVELOPING.md) is a note for the source's
        // readers and the command test, not page text; any other raw HTML is shown as text, never markup.
        if (/^\s*<!--[\s\S]*?-->\s*$/.test(text)) return "";
        return escapeHtml(text);
      },
      heading({ tokens, depth, text }: Tokens.Heading): string {
        const base = headingAnchor(text);
        const count = used.get(base) ?? 0;
        used.set(base, count + 1);
        const anchor = count === 0 ? base : `${base}-${count}`;
        const inner = this.parser.parseInline(tokens);
        if (depth === 2 || depth === 3) headings.push({ depth, text: inner.replace(/<[^>]+>/g, ""), anchor });
        return `<h${depth} id="${anchor}"><a class="anchor" href="#${anchor}" aria-hidden="true" tabindex="-1">#</a>${inner}</h${depth}>\n`;
      },
      link({ href, title, tokens }: Tokens.Link): string {
        const inner = this.parser.parseInline(tokens);
        const safe = safeHref(href);
        if (!safe) return inner;
        const external = /^https?:/i.test(safe);
        return `<a href="${escapeHtml(safe)}"${title ? ` title="${escapeHtml(title)}"` : ""}${external ? ' rel="noopener noreferrer"' : ""}>${inner}</a>`;
      },
      image({ href, title, text }: Tokens.Image): string {
        const safe = safeHref(href);
        if (!safe) return escapeHtml(text);
        return `<img src="${escapeHtml(safe)}" alt="${escapeHtml(text)}"${title ? ` title="${escapeHtml(title)}"` : ""} loading="lazy">`;
      },
      code({ text, lang, escaped }: Tokens.Code): string {
        // A long line scrolls inside the block: focusable (tabindex) so a keyboard can scroll it, and a named
        // region so a screen reader says what it lands on (WCAG 2.1.1; axe's scrollable-region-focusable).
        const language = /^\S*/.exec(lang ?? "")?.[0] ?? "";
        const body = text ? `${text.replace(/\n$/, "")}\n` : "";
        const label = language ? `Code example (${language})` : "Code example";
        const open = language ? `<code class="language-${escapeHtml(language)}">` : "<code>";
        return `<pre tabindex="0" role="region" aria-label="${escapeHtml(label)}">${open}${escaped ? body : escapeHtml(body)}</code></pre>\n`;
      },
      table(token: Tokens.Table): string | false {
        // Wide tables scroll inside their own box on a phone instead of widening the page. Alignment is a class,
        // not a style attribute: the pages' Content-Security-Policy allows no inline style (lib/http/security-headers.ts).
        const header = token.header.map((cell) => `<th${cell.align ? ` class="align-${cell.align}"` : ""}>${this.parser.parseInline(cell.tokens)}</th>`).join("");
        const rows = token.rows
          .map((row) => `<tr>${row.map((cell) => `<td${cell.align ? ` class="align-${cell.align}"` : ""}>${this.parser.parseInline(cell.tokens)}</td>`).join("")}</tr>`)
          .join("\n");
        return `<div class="table-scroll"><table>\n<thead><tr>${header}</tr></thead>\n<tbody>${rows}</tbody>\n</table></div>\n`;
      },
    },
  });
  const html = marked.parse(markdown) as string;
  return { html, headings };
}
