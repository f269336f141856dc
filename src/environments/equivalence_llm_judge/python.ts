// Python semantics NeMo Gym's judge prompts rely on beyond mcqa's str/re helpers: str.format,
// json.dumps, and the "last match, first non-blank group" answer pick, so prompts match byte for byte.
import type { PyRegex } from '../mcqa/python_regex';
import { pyStrip } from '../mcqa/python_str';
import { compareCodePoints } from '../workplace_assistant/python';

/** str.format with named fields only ("{name}", "{{", "}}"): what NeMo Gym's prompt templates use. */
export function pyFormat(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (token, field: string | undefined) => {
    if (token === '{{') return '{';
    if (token === '}}') return '}';
    if (field === undefined) throw new Error(`single '${token}' in format string`);
    if (!(field in values)) throw new Error(`format string names unknown field {${field}}`);
    return values[field]!;
  });
}

/** `list(re.finditer(...))[-1]` with NeMo Gym's pick: first non-blank group, else the whole match, stripped. */
export function lastMatchAnswer(regex: PyRegex, text: string): string | undefined {
  const last = [...regex.matches(text)].at(-1);
  if (!last) return undefined;
  const group = last.groups.find((g) => typeof g === 'string' && pyStrip(g) !== '');
  return pyStrip(group ?? last.text);
}

/** json.dumps(value, ensure_ascii=True, sort_keys=?) with Python's default ", " and ": " separators. */
export function pyJsonDumps(value: unknown, options: { sortKeys?: boolean } = {}): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (typeof value === 'string') return pyJsonString(value);
  if (Array.isArray(value)) return `[${value.map((v) => pyJsonDumps(v, options)).join(', ')}]`;
  const keys = Object.keys(value as object);
  if (options.sortKeys) keys.sort(compareCodePoints);
  const entries = keys.map((k) => `${pyJsonString(k)}: ${pyJsonDumps((value as Record<string, unknown>)[k], options)}`);
  return `{${entries.join(', ')}}`;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function pyJsonString(text: string): string {
  let out = '"';
  // UTF-16 units, because ensure_ascii writes astral characters as surrogate pairs too.
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
