// An answer's text parsed the way NeMo Gym parses each schema_type (json.loads, yaml.safe_load,
// xmltodict.parse, tomllib.loads, csv.DictReader), then coerced from strings where it does so.
import { jsonLoadsPlain } from '../../python/json';
import { coerceCsv, coerceXml } from './coerce';
import { readCsvDicts } from './csv';
import type { Parsed } from './foreign';
import { parseToml } from './toml';
import { parseXml } from './xml';
import { parsePyYaml } from './yaml';

export const SCHEMA_TYPES = ['json', 'yaml', 'xml', 'toml', 'csv'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** Throws what the Python parser would raise (a parse error). */
export function parseAnswer(type: SchemaType, text: string): unknown {
  switch (type) {
    case 'json':
      return jsonLoadsPlain(text);
    case 'yaml':
      return parsePyYaml(text);
    case 'xml':
      return parseXml(text);
    case 'toml':
      return parseToml(text);
    case 'csv':
      return readCsvDicts(text);
  }
}

/** The string coercion NeMo Gym applies before validating (XML with xml_coerce_types on, CSV always); throws like Python. */
export function coerceAnswer(type: SchemaType, parsed: unknown, schema: unknown): Parsed {
  if (type === 'xml') return coerceXml(parsed as never, schema);
  if (type === 'csv') return coerceCsv(parsed as Record<string, unknown>[], schema);
  return parsed as Parsed;
}
