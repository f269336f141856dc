// finance_sec_search's filings: the metadata its sec_filing_search answers from (one row per filing, the
// company's ticker, name and CIK with it) and, when a corpus has them, each filing's parsed text.
import { z } from 'zod';
import { Filing, loadCorpus } from '../finance_agent_v2/corpus';

export const SecFiling = Filing.extend({
  /** The period the filing reports on (`YYYY-MM-DD`, or "" when SEC gives none). */
  report_date: z.string(),
  /** The filing's text as parse_html_page reads it; absent when only the metadata was shipped. */
  text: z.string().nullish(),
});
export type SecFiling = z.infer<typeof SecFiling>;

export const loadSecFilings = (file: string | URL) => loadCorpus(file, SecFiling, 'finance_sec_search');

/** What edgar_search's BM25 index reads of a filing: its text when the corpus has it, else its metadata line. */
export const indexedText = (filing: SecFiling): SecFiling => ({ ...filing, body: filing.text ?? filing.body });
