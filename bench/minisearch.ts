// MiniSearch 7.2, the library the docs index (lib/docs/inverted-index.ts) replaced, configured as lib/docs/search.ts
// configured it (plus the typo-length bound): the reference that tests/unit/docs-index.test.ts checks the index
// against and bench/micro-docs.ts times it against.
import MiniSearch from "minisearch";
import { FUZZY_TERM_MAX_LENGTH, searchTerm } from "@/lib/docs/search";

/** A docs section as both indexes take it. */
export interface Section {
  id: number;
  title: string;
  heading: string;
  text: string;
}

export function miniSearchOf(sections: readonly Section[]): MiniSearch<Section> {
  const miniSearch = new MiniSearch<Section>({
    idField: "id",
    fields: ["title", "heading", "text"],
    processTerm: searchTerm,
    searchOptions: {
      boost: { title: 3, heading: 2, text: 1 },
      prefix: (term) => term.length >= 5,
      fuzzy: (term) => (term.length >= 7 && term.length <= FUZZY_TERM_MAX_LENGTH ? 0.1 : false),
      combineWith: "OR",
    },
  });
  miniSearch.addAll(sections);
  return miniSearch;
}
