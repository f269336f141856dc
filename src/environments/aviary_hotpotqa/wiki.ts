// Aviary's Wikipedia tools (search, lookup) over a snapshot the task row carries instead of the live
// site: a page's text and the lookup cursor follow Aviary's HotPotQAEnv step for step.
import { z } from 'zod';
import { GymError } from '../../errors';
import { pyRepr } from '../../python/values';
import { pySplit, pyStrip } from '../../python/str';
import { cleanStr } from './clean';

/** What Wikipedia's search answered for a query: a page (by title) or the titles it suggested instead. */
const SearchAnswer = z.union([z.strictObject({ page: z.string() }), z.strictObject({ similar: z.array(z.string()) })]);

export const WikiSnapshot = z
  .strictObject({
    /** Pages by title, as paragraphs of plain text (Aviary reads every <p> and <ul> of the page). */
    pages: z.record(z.string(), z.array(z.string())),
    /** Recorded answers of Wikipedia's search for queries whose answer is not simply the page of that title. */
    searches: z.record(z.string(), SearchAnswer).default({}),
  })
  .superRefine((wiki, ctx) => {
    for (const [query, answer] of Object.entries(wiki.searches)) {
      if ('page' in answer && !Object.hasOwn(wiki.pages, answer.page)) {
        ctx.addIssue({ code: 'custom', path: ['searches', query, 'page'], message: `names page "${answer.page}", which is not in wiki.pages` });
      }
    }
  });
export type WikiSnapshot = z.infer<typeof WikiSnapshot>;

/** HotPotQAEnvState's browsing part. */
export interface Browsing {
  /** The current page's text (kept paragraphs, one a line), or null after a search without a page. */
  page: string | null;
  lastActionIsLookup: boolean;
  lastLookup: string | null;
  lookupResults: string[];
  lookupIndex: number;
}

export const NO_PAGE: Browsing = { page: null, lastActionIsLookup: false, lastLookup: null, lookupResults: [], lookupIndex: 0 };

type Found = { kind: 'page'; paragraphs: string[] } | { kind: 'similar'; titles: string[] };

/** Words of a title or query for the local ranking of suggestions. */
function words(text: string): Set<string> {
  return new Set(pySplit(text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ')));
}

/**
 * The snapshot's answer to a query: the recorded answer, else the page of that title (exactly, then
 * ignoring case, as Wikipedia's "go" search does), else the snapshot's titles sharing the most words
 * with the query — a local stand-in for Wikipedia's ranking of suggestions, which says "no results"
 * even when none shares a word.
 */
function lookUp(wiki: WikiSnapshot, query: string): Found {
  const recorded = Object.hasOwn(wiki.searches, query) ? wiki.searches[query]! : undefined;
  if (recorded && 'page' in recorded) return { kind: 'page', paragraphs: wiki.pages[recorded.page]! };
  // Aviary reads an answer without suggestion headings as a page: recorded without any, it is an empty one.
  if (recorded) return recorded.similar.length ? { kind: 'similar', titles: recorded.similar } : { kind: 'page', paragraphs: [] };
  const titles = Object.keys(wiki.pages);
  const title = titles.find((t) => t === query) ?? titles.find((t) => t.toLowerCase() === query.toLowerCase());
  if (title !== undefined) return { kind: 'page', paragraphs: wiki.pages[title]! };
  const asked = words(query);
  const ranked = titles
    .map((t, order) => ({ t, order, shared: [...words(t)].filter((w) => asked.has(w)).length }))
    .filter((r) => r.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.order - b.order);
  return { kind: 'similar', titles: ranked.map((r) => r.t) };
}

/** The page as Aviary keeps it: each paragraph of more than two words, cleaned, then a line break. */
function pageText(paragraphs: string[]): string {
  return paragraphs
    .map((p) => pyStrip(p))
    .filter((p) => p.split(' ').length > 2)
    .map((p) => `${cleanStr(p)}\n`)
    .join('');
}

/** The first five sentences (split at ". ", each given back its period), which is all search shows. */
function summary(page: string): string {
  const sentences = page
    .split('\n')
    .filter((p) => pyStrip(p) !== '')
    .flatMap((p) =>
      p
        .split('. ')
        .filter((s) => pyStrip(s) !== '')
        .map((s) => `${pyStrip(s)}.`),
    );
  return sentences.slice(0, 5).join(' ');
}

// Each disambiguation page makes Aviary search again with the entity in brackets; a snapshot whose
// bracketed queries lead back to disambiguation pages this deep would send it round forever.
const MAX_DISAMBIGUATIONS = 16;

/** Aviary's search for a non-empty entity: the reply and the browsing state after it. */
export function search(wiki: WikiSnapshot, entity: string, state: Browsing, depth = 0): { text: string; state: Browsing } {
  if (depth > MAX_DISAMBIGUATIONS) throw new GymError('BAD_TASK', `task wiki: searching ${pyRepr(entity)} goes through more than ${MAX_DISAMBIGUATIONS} disambiguation pages`);
  const found = lookUp(wiki, entity);
  if (found.kind === 'similar') {
    return { text: `Search for ${pyRepr(entity)} returned no results. Similar: ${pyRepr(found.titles.slice(0, 5).map((t) => cleanStr(pyStrip(t))))}.`, state: { ...state, page: null } };
  }
  // A disambiguation page: Aviary searches again for the bracketed entity.
  if (found.paragraphs.some((p) => p.includes('may refer to:'))) return search(wiki, `[${entity}]`, state, depth + 1);
  const page = pageText(found.paragraphs);
  return { text: summary(page), state: { ...state, page, lastActionIsLookup: false } };
}

/** Aviary's lookup for a non-empty keyword: the next line of the page containing it, case-insensitively. */
export function lookup(keyword: string, state: Browsing): { text: string; state: Browsing } {
  if (!state.page) return { text: 'Lookup failed. You have not specified a Wikipedia page yet.', state };
  let next = state;
  if (!state.lastActionIsLookup || state.lastLookup !== keyword) {
    const needle = keyword.toLowerCase();
    const lookupResults = state.page
      .split('\n')
      .filter((line) => pyStrip(line) !== '' && line.toLowerCase().includes(needle))
      .map((line) => pyStrip(line));
    next = { ...state, lastLookup: keyword, lookupResults, lookupIndex: 0 };
  }
  if (next.lookupIndex >= next.lookupResults.length) return { text: 'No more results.', state: next };
  const text = `(Result ${next.lookupIndex + 1} / ${next.lookupResults.length}) ${next.lookupResults[next.lookupIndex]}`;
  return { text, state: { ...next, lookupIndex: next.lookupIndex + 1, lastActionIsLookup: true } };
}
