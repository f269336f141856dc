// Builds data/filings.jsonl, the offline corpus, from the filing metadata NeMo Gym's recorded rollouts hold:
// every record a sec_filing_search call returned, once, in the order first returned (newest first).
//   npx tsx src/environments/finance_sec_search/build-filings.ts
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ROLLOUTS = path.join(ROOT, 'tests/fixtures/nemo-gym/finance_sec_search/example_rollouts.jsonl');
const OUT = path.join(import.meta.dirname, 'data/filings.jsonl');

interface Returned {
  ticker: string;
  company_name: string;
  form: string;
  filing_date: string;
  report_date: string;
  accession_number: string;
  filing_url: string;
}
type Item = { type?: string; name?: string; call_id?: string; output?: string };

const rows = readFileSync(ROLLOUTS, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { response: { output: Item[] } });
const seen = new Map<string, Returned>();
for (const row of rows) {
  const searches = new Set(row.response.output.filter((i) => i.type === 'function_call' && i.name === 'sec_filing_search').map((i) => i.call_id));
  for (const item of row.response.output) {
    if (item.type !== 'function_call_output' || !searches.has(item.call_id)) continue;
    const returned = JSON.parse(JSON.parse(item.output!).results) as unknown;
    if (!Array.isArray(returned)) continue;
    for (const f of returned as Returned[]) if (!seen.has(f.filing_url)) seen.set(f.filing_url, f);
  }
}
const filings = [...seen.values()].map((f) => ({
  accession_number: f.accession_number,
  // The Archives URL's first path segment after /data/ is the filer's CIK.
  cik: /\/edgar\/data\/(\d+)\//.exec(f.filing_url)![1]!.replace(/^0+/, ''),
  ticker: f.ticker,
  company_name: f.company_name,
  form_type: f.form,
  document_type: f.form,
  description: f.form,
  filing_date: f.filing_date,
  report_date: f.report_date,
  url: f.filing_url,
  body: [f.company_name, f.ticker, f.form, `filed ${f.filing_date}`, f.report_date ? `for ${f.report_date}` : ''].filter(Boolean).join(' '),
}));
writeFileSync(OUT, filings.map((f) => JSON.stringify(f) + '\n').join(''));
console.log(`${filings.length} filings written to ${path.relative(ROOT, OUT)}`);
