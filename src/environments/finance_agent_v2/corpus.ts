// The filings edgar_search and parse_html_page read: one JSON object per line with the filing's
// metadata and its text (`body`), the columns NeMo Gym's local EDGAR index keeps per document.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GymError } from '../../errors';

export const Filing = z.object({
  accession_number: z.string(),
  /** Without leading zeros (`str(int(cik))`): requests are normalised that way before comparing. */
  cik: z.string().regex(/^[1-9][0-9]*$/, 'cik must be digits without leading zeros'),
  ticker: z.string(),
  company_name: z.string(),
  form_type: z.string(),
  document_type: z.string(),
  description: z.string().nullable(),
  filing_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'filing_date must be YYYY-MM-DD'),
  url: z.string(),
  body: z.string(),
});
export type Filing = z.infer<typeof Filing>;

/** Reads a corpus file, refusing it with the line and field of the first bad row (`schema`: Filing, or one extending it). */
export function loadCorpus<Row extends Filing = Filing>(file: string | URL, schema: z.ZodType<Row> = Filing as unknown as z.ZodType<Row>, owner = 'finance_agent_v2'): Row[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new GymError('BAD_INPUT', `${owner} corpus ${String(file)} cannot be read: ${(e as Error).message}`);
  }
  return text.split('\n').flatMap((line, i) => {
    if (!line.trim()) return [];
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new GymError('BAD_INPUT', `${owner} corpus ${String(file)} line ${i + 1} is not JSON: ${(e as Error).message}`);
    }
    const parsed = schema.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GymError('BAD_INPUT', `${owner} corpus ${String(file)} line ${i + 1}, field ${issue.path.join('.') || '(row)'}: ${issue.message}`);
    }
    return [parsed.data];
  });
}
