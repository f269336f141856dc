// Python's tomllib.loads (TOML 1.0) on smol-toml. tomllib returns date and time objects, which no
// JSON Schema type accepts, so they become the foreign marker.
import { parse } from 'smol-toml';
import { FOREIGN, type Parsed } from './foreign';

export function parseToml(text: string): Parsed {
  return toParsed(parse(text, { integersAsBigInt: 'asNeeded' }));
}

function toParsed(value: unknown): Parsed {
  if (value instanceof Date) return FOREIGN;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toParsed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toParsed(v)]));
  }
  return value as Parsed;
}
