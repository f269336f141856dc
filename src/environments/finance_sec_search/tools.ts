// finance_sec_search's tools over the offline corpus: sec_filing_search (a company's filings by ticker),
// edgar_search (BM25 over the filings), parse_html_page (a filing's text into the session's storage) and
// submit_final_result. retrieve_information and web_search answer as NeMo Gym does without their model or key.
import { z } from 'zod';
import { jsonDumps, jsonLoadsPlain } from '../../python/json';
import { pyStrip } from '../../python/str';
import { pyRepr } from '../../python/values';
import { reply, type Tool, type ToolReply } from '../types';
import type { SecFiling } from './corpus';

/** The session's data storage: parsed pages by the key the model chose. */
export interface DataStorage {
  storage: Record<string, string>;
}

/** NeMo Gym's routes answer `{"results": <text>}`. */
const results = <S>(text: string, state: S): ToolReply<S> => reply({ results: text }, state);

/** Tool-call parsers may send a list as its JSON (or Python) text: read it back, else leave it to validation. */
export function listFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  for (const text of [value, value.replace(/'/g, '"')]) {
    try {
      const parsed = jsonLoadsPlain(text);
      if (parsed !== null && typeof parsed === 'object') return parsed;
    } catch {
      // not JSON in either spelling
    }
  }
  return value;
}

const SearchArgs = z.object({
  ticker: z.string(),
  form_types: z.preprocess(listFromText, z.array(z.string()).nullish()),
  start_date: z.string().nullish(),
  end_date: z.string().nullish(),
});

/** sec_filing_search's cap on returned filings (`max_filing_results`). */
export const MAX_FILING_RESULTS = 200;

interface Company {
  cik: string;
  name: string;
  filings: SecFiling[];
}

/** The ticker table and each company's filings, in corpus order (newest first, as SEC lists them). */
export function companiesByTicker(filings: readonly SecFiling[]): Map<string, Company> {
  const byTicker = new Map<string, Company>();
  for (const f of filings) {
    if (!f.ticker) continue;
    const key = f.ticker.toUpperCase();
    let company = byTicker.get(key);
    if (!company) byTicker.set(key, (company = { cik: f.cik, name: f.company_name, filings: [] }));
    company.filings.push(f);
  }
  return byTicker;
}

export function secFilingSearch(filings: readonly SecFiling[]): Tool<unknown, DataStorage, z.infer<typeof SearchArgs>> {
  const companies = companiesByTicker(filings);
  return {
    args: SearchArgs,
    run({ ticker, form_types, start_date, end_date }, { state }) {
      const query = pyStrip(ticker).toUpperCase();
      const company = companies.get(query);
      if (!company) {
        return results(
          jsonDumps({
            error: `No company found for ticker '${ticker}'`,
            suggestion:
              "Use the exact stock ticker symbol (e.g., 'AAPL' for Apple, 'MSFT' for Microsoft). Note: only companies listed at https://www.sec.gov/files/company_tickers.json are supported.",
          }),
          state,
        );
      }
      const forms = form_types?.length ? form_types : null;
      let found = company.filings
        .filter((f) => !forms || forms.includes(f.form_type))
        .map((f) => ({
          ticker: query,
          company_name: company.name,
          form: f.form_type,
          filing_date: f.filing_date,
          report_date: f.report_date,
          accession_number: f.accession_number,
          filing_url: f.url,
        }));
      // A stable sort, newest first, as Python's sort(reverse=True) keeps equal dates in listed order.
      found = found
        .map((f, i) => ({ f, i }))
        .sort((a, b) => (a.f.filing_date < b.f.filing_date ? 1 : a.f.filing_date > b.f.filing_date ? -1 : a.i - b.i))
        .map(({ f }) => f);
      if (start_date) found = found.filter((f) => f.filing_date >= start_date);
      if (end_date) found = found.filter((f) => f.filing_date <= end_date);
      found = found.slice(0, MAX_FILING_RESULTS);
      if (!found.length) {
        const filters = [forms && `form types ${pyRepr(forms)}`, start_date && `start_date=${start_date}`, end_date && `end_date=${end_date}`].filter(Boolean);
        return results(
          jsonDumps({
            error: `No filings found for '${ticker}'${filters.length ? ` with ${filters.join(', ')}` : ''}`,
            suggestion: 'Try broadening your search: remove form_types filter, widen the date range, or check the ticker symbol.',
          }),
          state,
        );
      }
      return results(jsonDumps(found, { indent: 2 }), state);
    },
  };
}

const ParseArgs = z.object({ url: z.string(), key: z.string() });

export function parseHtmlPage(filings: readonly SecFiling[]): Tool<unknown, DataStorage, z.infer<typeof ParseArgs>> {
  const byUrl = new Map(filings.map((f) => [f.url, f]));
  return {
    args: ParseArgs,
    run({ url, key }, { state }) {
      if (!url) return results('ERROR: url is required.', state);
      if (!key) return results('ERROR: key is required.', state);
      const text = byUrl.get(url)?.text;
      // NeMo Gym downloads the page (SEC.gov or the web); offline only a corpus that carries the text can answer.
      if (!text) return results(`Failed to fetch ${url}: the filing's text is not in the local corpus, and reading it from SEC.gov needs a download.`, state);
      const overwrite = key in state.storage;
      const storage = { ...state.storage, [key]: text };
      const message =
        (overwrite ? 'WARNING: The key already exists in the data storage. The new result overwrites the old one.\n' : '') +
        `SUCCESS: The result has been saved to the data storage under the key: ${key}.\n` +
        `The data_storage currently contains the following keys:\n${Object.keys(storage).join('\n')}\n`;
      return results(message, { storage });
    },
  };
}

const SubmitArgs = z.object({ final_result: z.string() });

export const submitFinalResult: Tool<unknown, DataStorage, z.infer<typeof SubmitArgs>> = {
  args: SubmitArgs,
  run: ({ final_result }, { state }) => results(final_result ? jsonDumps({ success: true, result: final_result }) : 'ERROR: final_result is required. Please provide your answer.', state),
};

/** retrieve_information asks a model inside the tool call; Gymflow's tools have none, as NeMo Gym without a retrieval model. */
export const retrieveInformation: Tool<unknown, DataStorage, Record<string, unknown>> = {
  args: z.looseObject({ prompt: z.string(), input_character_ranges: z.preprocess(listFromText, z.array(z.record(z.string(), z.unknown())).nullish()) }),
  run: (_args, { state }) => results('ERROR: Retrieval model not configured. Set retrieval_model_server in config.', state),
};

/** web_search without a Tavily key. */
export const webSearch: Tool<unknown, DataStorage, Record<string, unknown>> = {
  args: z.looseObject({ search_query: z.string() }),
  run: (_args, { state }) => results(jsonDumps({ error: 'web_search is not available. Use sec_filing_search, parse_html_page, and retrieve_information instead.' }), state),
};
