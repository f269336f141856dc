// FABv2's tools over a local filing corpus: edgar_search (BM25 over the filings' text), parse_html_page
// (a corpus filing into the session's data storage), calculator and submit_final_result. The tools that
// need the network or a model (web_search, price_history, retrieve_information) answer as NeMo Gym's
// server does when their key or model is not configured.
import { z } from 'zod';
import { jsonDumps } from '../../python/json';
import { pyFloatRepr } from '../../python/number';
import { CalculatorError, evaluate, FINANCE_FUNCTIONS } from '../aviary_gsm8k/calculator';
import { reply, type Tool, type ToolReply } from '../types';
import type { Filing } from './corpus';
import { FilingIndex, PAGE_SIZE, QueryError } from './search';

/** The session's data storage: parsed pages by the key the model chose. */
export interface DataStorage {
  storage: Record<string, string>;
}

/** NeMo Gym's tool routes answer `{"results": <text>}`; failures put a JSON error object in the text. */
const results = <S>(text: string, state: S): ToolReply<S> => reply({ results: text }, state);
const failure = <S>(message: string, state: S): ToolReply<S> => results(jsonDumps({ error: message }), state);

/** Upstream's MAX_END_DATE: no search or price reaches past it. */
export const MAX_END_DATE = '2026-03-01';
const DEFAULT_START_DATE = '1900-01-01';

const EdgarArgs = z.looseObject({
  search_query: z.unknown(),
  start_date: z.unknown().optional(),
  end_date: z.unknown().optional(),
  page: z.unknown().optional(),
  top_n_results: z.unknown().optional(),
  form_types: z.unknown().optional(),
  ciks: z.unknown().optional(),
});

class RequestError extends Error {}

function isoDate(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new RequestError(`${name} must be a string in yyyy-mm-dd format`);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)) : null;
  if (!d || d.getUTCDate() !== +m![3]! || d.getUTCMonth() !== +m![2]! - 1) throw new RequestError(`${name} '${value}' is not in yyyy-mm-dd format`);
  return value;
}

function strings(name: string, value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new RequestError(`The parameter ${name} must be a list if provided.`);
  if (!value.every((v) => typeof v === 'string')) throw new RequestError(`The parameter ${name} must contain only strings`);
  return value.length ? value : null;
}

const positiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function record(f: Filing) {
  return {
    accessionNo: f.accession_number,
    cik: f.cik,
    companyNameLong: f.company_name,
    ticker: f.ticker || null,
    description: f.description,
    formType: f.form_type,
    type: f.document_type,
    filingUrl: f.url,
    filedAt: f.filing_date,
  };
}

/**
 * edgar_search over a local index (sec_local_index's request rules). Each server has its own cutoff date, and
 * words its errors its own way: FABv2 as Vals's tools raise them (`ValueError: …`), finance_sec_search bare.
 */
export function edgarSearch<S>(
  index: FilingIndex,
  { maxEndDate = MAX_END_DATE, errorText = (message: string) => `ValueError: ${message}` }: { maxEndDate?: string; errorText?: (message: string) => string } = {},
): Tool<unknown, S, z.infer<typeof EdgarArgs>> {
  return {
    args: EdgarArgs,
    run(args, { state }) {
      try {
        const query = args.search_query;
        if (typeof query !== 'string' || !query.trim()) {
          throw new RequestError('search_query is required and cannot be empty. Provide a search term to search the contents of SEC filings.');
        }
        const min = (a: string, b: string) => (a < b ? a : b);
        const start = min(isoDate('start_date', args.start_date || DEFAULT_START_DATE), maxEndDate);
        const end = min(isoDate('end_date', args.end_date || maxEndDate), maxEndDate);
        if (start > end) throw new RequestError(`Parameter start_date '${start}' was set to a date that is later than end_date '${end}'`);
        const page = args.page ?? 1;
        if (!positiveInt(page) || page < 1) throw new RequestError('page must be an integer greater than or equal to 1');
        const top = args.top_n_results ?? PAGE_SIZE;
        if (!positiveInt(top) || top < 1 || top > PAGE_SIZE) throw new RequestError('top_n_results must be an integer between 1 and 100');
        const rawCiks = strings('ciks', args.ciks);
        if (rawCiks && !rawCiks.every((c) => /^\s*[+-]?\d+\s*$/.test(c))) throw new RequestError('The parameter ciks must contain numeric strings');
        const ciks = rawCiks?.map((c) => String(BigInt(c.trim()))) ?? null;
        const coverage = index.coverage();
        if (coverage && (start > coverage[1] || end < coverage[0])) {
          throw new RequestError(`No filings are indexed between ${start} and ${end}. This local corpus covers ${coverage[0]} through ${coverage[1]}. Search within that range.`);
        }
        const filters = { startDate: start, endDate: end, formTypes: strings('form_types', args.form_types), ciks };
        let hits = index.search(query, filters);
        // A company-filtered search with no text hit lists that company's filings instead, as NeMo Gym's index does.
        if (!hits.length && query.trim() !== '*' && ciks) hits = index.search('*', filters);
        const pageHits = hits.slice((page - 1) * PAGE_SIZE, (page - 1) * PAGE_SIZE + top);
        return results(jsonDumps(pageHits.map(record)), state);
      } catch (e) {
        if (e instanceof RequestError || e instanceof QueryError) return failure(errorText(e.message), state);
        throw e;
      }
    },
  };
}

const ParseArgs = z.object({ url: z.string(), key: z.string() });

export function parseHtmlPage(filings: readonly Filing[]): Tool<unknown, DataStorage, z.infer<typeof ParseArgs>> {
  const byUrl = new Map(filings.map((f) => [f.url, f]));
  return {
    args: ParseArgs,
    run({ url, key }, { state }) {
      const filing = byUrl.get(url);
      // NeMo Gym would fetch a page its corpus lacks from the web; Gymflow runs offline.
      if (!filing) return failure(`Tool 'parse_html_page' cannot fetch ${url}: only filings in the local corpus can be read offline.`, state);
      const storage = { ...state.storage, [key]: filing.body };
      const keys = Object.keys(storage).join('\n');
      return results(`SUCCESS: The result has been saved to the data storage under the key: ${key}.\nThe data_storage currently contains the following keys:\n        ${keys}\n`, { storage });
    },
  };
}

const ExpressionArgs = z.object({ expression: z.string() });

export const calculator: Tool<unknown, DataStorage, z.infer<typeof ExpressionArgs>> = {
  args: ExpressionArgs,
  run({ expression }, { state }) {
    try {
      const value = evaluate(expression, FINANCE_FUNCTIONS);
      // Python prints a true division or a float function's result as a float, integer arithmetic as an int.
      const isFloat = !Number.isInteger(value) || /[./]|sqrt|log|e[+-]?\d/i.test(expression);
      return results(isFloat ? pyFloatRepr(value) : String(value), state);
    } catch (e) {
      if (e instanceof CalculatorError) return failure(`ValueError: ${e.message}`, state);
      throw e;
    }
  },
};

const SubmitArgs = z.looseObject({ final_result: z.unknown() });

export const submitFinalResult: Tool<unknown, DataStorage, z.infer<typeof SubmitArgs>> = {
  args: SubmitArgs,
  run({ final_result }, { state }) {
    return results(typeof final_result === 'string' ? final_result : jsonDumps(final_result ?? null), state);
  },
};

/** A tool whose key or model is not configured: every call gets NeMo Gym's "not available" error. */
export function unavailable(name: string): Tool<unknown, DataStorage, Record<string, unknown>> {
  return {
    args: z.record(z.string(), z.unknown()),
    run: (_args, { state }) => failure(`Tool '${name}' is not available (required API key or model server not configured).`, state),
  };
}
