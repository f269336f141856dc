// A value written out in an answer format so that NeMo Gym's parser (and its XML/CSV coercion)
// reads it back as the same value.
import { stringify as stringifyToml } from 'smol-toml';
import { stringify as stringifyYaml } from 'yaml';
import type { Format } from './sample';

export function serialize(value: unknown, format: Format): string {
  switch (format) {
    case 'json':
      return JSON.stringify(value, null, 2);
    case 'yaml':
      return stringifyYaml(value, { version: '1.1' });
    case 'toml':
      return stringifyToml(value as Record<string, unknown>);
    case 'xml':
      return Object.entries((value ?? {}) as Record<string, unknown>)
        .map(([k, v]) => xmlElement(k, v))
        .join('');
    case 'csv':
      return csvTable((Array.isArray(value) ? value : [value]) as Record<string, unknown>[]);
  }
}

const escapeXml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Arrays as a wrapper element of <item>s: NeMo Gym unwraps the wrapper at array positions. */
function xmlElement(name: string, value: unknown): string {
  if (value === null || value === '') return `<${name}/>`;
  if (Array.isArray(value)) return `<${name}>${value.map((v) => xmlElement('item', v)).join('')}</${name}>`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const attrs = entries
      .filter(([k]) => k.startsWith('@'))
      .map(([k, v]) => ` ${k.slice(1)}="${escapeXml(String(v))}"`)
      .join('');
    const text = entries.find(([k]) => k === '#text')?.[1];
    const children = entries
      .filter(([k]) => !k.startsWith('@') && k !== '#text')
      .map(([k, v]) => xmlElement(k, v))
      .join('');
    return `<${name}${attrs}>${text === undefined ? '' : escapeXml(String(text))}${children}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

function csvTable(rows: Record<string, unknown>[]): string {
  const header = Object.keys(rows[0] ?? {});
  const cell = (v: unknown) => (v === null ? '' : typeof v === 'string' ? `"${v.replaceAll('"', '""')}"` : String(v));
  return [header.map(cell).join(','), ...rows.map((row) => header.map((h) => cell(row[h])).join(','))].join('\n') + '\n';
}
