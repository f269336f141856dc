// A BM25 full-text index over filings, answering edgar_search's query language as NeMo Gym's local
// EDGAR index does over SQLite FTS5: implicit AND, OR groups, NOT/-term exclusions, "phrases", prefix*.
import type { Filing } from './corpus';

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;
export const PAGE_SIZE = 100;

/** FTS5's unicode61 tokenizer with remove_diacritics: lowercase letter/digit runs, accents dropped. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A term: a phrase of tokens that must appear in order, or one token as a prefix. */
interface Term {
  tokens: string[];
  prefix: boolean;
}

/** An OR of AND-groups, minus any document matching an exclusion. */
export interface Query {
  groups: Term[][];
  exclusions: Term[];
}

export class QueryError extends Error {}

function parseTerm(raw: string): Term {
  const prefix = raw.endsWith('*');
  const value = prefix ? raw.slice(0, -1) : raw;
  if (!value) throw new QueryError('Wildcard requires a non-empty prefix');
  if (value.includes('*')) throw new QueryError('Wildcards are supported only at the end of a term');
  if (raw.startsWith('"')) {
    if (prefix) throw new QueryError('Wildcards are not supported on quoted phrases');
    if (!raw.endsWith('"') || raw.length < 2) throw new QueryError('Unterminated quoted phrase');
    return { tokens: tokenize(raw.slice(1, -1).replaceAll('""', '"')), prefix: false };
  }
  return { tokens: tokenize(value), prefix };
}

/** The query language NeMo Gym's local index accepts; what it refuses is refused with its reason. */
export function parseQuery(query: string): Query {
  if (!query.trim()) throw new QueryError('Query must not be empty');
  if (/[()]/.test(query)) throw new QueryError('Parentheses are not supported');
  const groups: Term[][] = [[]];
  const exclusions: Term[] = [];
  let negateNext = false;
  for (const raw of query.match(/"(?:[^"]|"")*"|\S+/g) ?? []) {
    if (raw === 'OR') {
      if (!groups.at(-1)!.length) throw new QueryError('OR must follow a search term');
      groups.push([]);
      negateNext = false;
      continue;
    }
    if (raw === 'AND') throw new QueryError('Explicit AND is unsupported; use spaces for implicit AND');
    if (raw === 'NOT') {
      negateNext = true;
      continue;
    }
    const excluded = negateNext || raw.startsWith('-');
    negateNext = false;
    const term = parseTerm(raw.startsWith('-') ? raw.slice(1) : raw);
    (excluded ? exclusions : groups.at(-1)!).push(term);
  }
  if (negateNext) throw new QueryError('NOT must be followed by a search term');
  if (!groups.at(-1)!.length) throw new QueryError('Query must end with a positive search term');
  return { groups, exclusions };
}

interface Posting {
  /** Token positions in the document, ascending. */
  positions: number[];
}

export interface SearchFilters {
  startDate: string;
  endDate: string;
  formTypes: readonly string[] | null;
  ciks: readonly string[] | null;
}

export class FilingIndex {
  private readonly postings = new Map<string, Map<number, Posting>>();
  private readonly lengths: number[];
  private readonly averageLength: number;
  private readonly sortedTokens: string[];

  constructor(readonly filings: readonly Filing[]) {
    this.lengths = filings.map((filing, doc) => {
      const tokens = tokenize(filing.body);
      tokens.forEach((token, position) => {
        let docs = this.postings.get(token);
        if (!docs) this.postings.set(token, (docs = new Map()));
        let posting = docs.get(doc);
        if (!posting) docs.set(doc, (posting = { positions: [] }));
        posting.positions.push(position);
      });
      return tokens.length;
    });
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, filings.length);
    this.sortedTokens = [...this.postings.keys()].sort();
  }

  /** The earliest and latest filing dates held, or null for an empty corpus. */
  coverage(): [string, string] | null {
    if (!this.filings.length) return null;
    const dates = this.filings.map((f) => f.filing_date).sort();
    return [dates[0]!, dates.at(-1)!];
  }

  private expand(term: Term, i: number): string[] {
    const token = term.tokens[i]!;
    if (!(term.prefix && i === term.tokens.length - 1)) return this.postings.has(token) ? [token] : [];
    return this.sortedTokens.filter((t) => t.startsWith(token));
  }

  /** Documents containing the term, with the term's occurrence count in each (phrases counted as wholes). */
  private termHits(term: Term): Map<number, number> {
    const hits = new Map<number, number>();
    if (!term.tokens.length) return hits;
    const variants = term.tokens.map((_, i) => this.expand(term, i));
    const positionsIn = (i: number, doc: number): Set<number> => {
      const set = new Set<number>();
      for (const token of variants[i]!) for (const p of this.postings.get(token)?.get(doc)?.positions ?? []) set.add(p);
      return set;
    };
    const candidates = new Set<number>();
    for (const token of variants[0]!) for (const doc of this.postings.get(token)!.keys()) candidates.add(doc);
    for (const doc of candidates) {
      let starts = positionsIn(0, doc);
      for (let i = 1; i < term.tokens.length && starts.size; i++) {
        const next = positionsIn(i, doc);
        starts = new Set([...starts].filter((p) => next.has(p + i)));
      }
      if (starts.size) hits.set(doc, starts.size);
    }
    return hits;
  }

  private bm25(hits: Map<number, number>, doc: number): number {
    const tf = hits.get(doc) ?? 0;
    if (!tf) return 0;
    const n = this.filings.length;
    const idf = Math.max(1e-6, Math.log((n - hits.size + 0.5) / (hits.size + 0.5)));
    return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength));
  }

  private passes(doc: number, filters: SearchFilters): boolean {
    const f = this.filings[doc]!;
    return f.filing_date >= filters.startDate && f.filing_date <= filters.endDate && (!filters.formTypes || filters.formTypes.includes(f.form_type)) && (!filters.ciks || filters.ciks.includes(f.cik));
  }

  /** Matching filings, best BM25 first, then newest, then by URL; `*` lists every filing the filters admit, newest first. */
  search(query: string, filters: SearchFilters): Filing[] {
    const byRecency = (a: number, b: number) => cmp(this.filings[b]!.filing_date, this.filings[a]!.filing_date) || cmp(this.filings[a]!.url, this.filings[b]!.url);
    if (query.trim() === '*')
      return this.filings
        .map((_, doc) => doc)
        .filter((doc) => this.passes(doc, filters))
        .sort(byRecency)
        .map((doc) => this.filings[doc]!);
    const parsed = parseQuery(query);
    const excluded = new Set<number>();
    for (const term of parsed.exclusions) for (const doc of this.termHits(term).keys()) excluded.add(doc);
    const scores = new Map<number, number>();
    for (const group of parsed.groups) {
      const hits = group.map((term) => this.termHits(term));
      const [first, ...rest] = hits;
      for (const doc of first!.keys()) {
        if (excluded.has(doc) || !rest.every((h) => h.has(doc)) || !this.passes(doc, filters)) continue;
        const score = hits.reduce((s, h) => s + this.bm25(h, doc), 0);
        scores.set(doc, Math.max(scores.get(doc) ?? 0, score));
      }
    }
    return [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || byRecency(a, b)).map((doc) => this.filings[doc]!);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
