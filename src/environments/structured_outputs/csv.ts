// Python's list(csv.DictReader(io.StringIO(text))) with the default "excel" dialect: the C reader's
// state machine (lenient about stray quotes, strict about a bare "\r" inside a line), a header row,
// blank rows skipped, short rows padded with None and extra cells gathered under the None key.

/** The key Python's DictReader files extra cells under (None): never a schema property name. */
const REST_KEY = '\u0000None';

export type CsvRow = Record<string, string | null | string[]>;

type State = 'start_record' | 'start_field' | 'in_field' | 'in_quoted' | 'quote_in_quoted' | 'eat_crnl';
const EOL = null;
const FIELD_LIMIT = 131072;

export class CsvError extends Error {
  override name = 'Error';
}

/** csv.reader over the lines of io.StringIO(text), which end after each "\n" only. */
function readCsvRows(text: string): string[][] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const rows: string[][] = [];
  let state: State = 'start_record';
  let fields: string[] = [];
  let field = '';
  let fieldLen = 0;
  const save = () => {
    fields.push(field);
    field = '';
    fieldLen = 0;
  };
  const add = (c: string) => {
    if (++fieldLen > FIELD_LIMIT) throw new CsvError(`field larger than field limit (${FIELD_LIMIT})`);
    field += c;
  };

  const step = (c: string | null): void => {
    switch (state) {
      case 'start_record':
        if (c === EOL) return;
        if (c === '\n' || c === '\r') {
          state = 'eat_crnl';
          return;
        }
        state = 'start_field';
        return step(c);
      case 'start_field':
        if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'start_record' : 'eat_crnl';
        } else if (c === '"') state = 'in_quoted';
        else if (c === ',') save();
        else {
          add(c);
          state = 'in_field';
        }
        return;
      case 'in_field':
        if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'start_record' : 'eat_crnl';
        } else if (c === ',') {
          save();
          state = 'start_field';
        } else add(c);
        return;
      case 'in_quoted':
        if (c === EOL) return;
        if (c === '"') state = 'quote_in_quoted';
        else add(c);
        return;
      case 'quote_in_quoted':
        if (c === '"') {
          add(c);
          state = 'in_quoted';
        } else if (c === ',') {
          save();
          state = 'start_field';
        } else if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'start_record' : 'eat_crnl';
        } else {
          add(c);
          state = 'in_field';
        }
        return;
      case 'eat_crnl':
        if (c === '\n' || c === '\r') return;
        if (c === EOL) {
          state = 'start_record';
          return;
        }
        throw new CsvError("new-line character seen in unquoted field - do you need to open the file with newline=''?");
    }
  };

  for (const line of lines) {
    for (const c of line) step(c);
    step(EOL);
    if (state === 'start_record') {
      rows.push(fields);
      fields = [];
    }
  }
  // At end of input a pending field (or an open quote) still makes a last row.
  if (fieldLen !== 0 || (state as State) === 'in_quoted') {
    save();
    rows.push(fields);
  }
  return rows;
}

export function readCsvDicts(text: string): CsvRow[] {
  const [header, ...rows] = readCsvRows(text);
  if (!header) return [];
  return rows
    .filter((row) => row.length > 0)
    .map((row) => {
      const dict: CsvRow = {};
      header.forEach((name, i) => (dict[name] = i < row.length ? row[i]! : null));
      if (row.length > header.length) dict[REST_KEY] = row.slice(header.length);
      return dict;
    });
}
