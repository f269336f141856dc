// Flag parsing for every command: node's parseArgs, with each mistake turned into a message that
// names the flag, and typed readers for numbers.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GymError } from '../errors';

export type Options = NonNullable<ParseArgsConfig['options']>;

const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * parseArgs calls `--concurrency -1` ambiguous (the value looks like a flag); no flag is a digit, so a
 * negative number after a flag that takes a value is that value, and the number readers judge it.
 */
function attachNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const long = arg.startsWith('--') ? arg.slice(2) : Object.keys(options).find((name) => arg.length === 2 && options[name]!.short === arg[1]);
    const next = argv[i + 1];
    if (long !== undefined && options[long]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${long}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

export function parseFlags<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: attachNegativeValues(argv, options), options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (e) {
    throw new GymError('BAD_FLAG', `${(e as Error).message.replace(/\s*To specify.*$/s, '')}\n\n${usage}`);
  }
}

// Plain decimal only: Number() would also take "0x10", "1e3", " 8 " and "" (as 0).
const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

function flagText(raw: unknown): string {
  const text = String(raw);
  // An empty or blank value would vanish from the message.
  return text.trim() === '' ? JSON.stringify(text) : text;
}

export function intFlag(values: Record<string, unknown>, name: string, opts: { min?: number; max?: number; fallback?: number } = {}): number | undefined {
  const raw = values[name];
  if (raw === undefined) return opts.fallback;
  const n = typeof raw === 'string' && DECIMAL_INTEGER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
    const range = [opts.min !== undefined ? ` ≥ ${opts.min}` : '', opts.max !== undefined ? ` ≤ ${opts.max}` : ''].filter(Boolean).join(' and');
    throw new GymError('BAD_FLAG', `--${name} must be an integer${range}, got ${flagText(raw)}`);
  }
  return n;
}

export function numberFlag(values: Record<string, unknown>, name: string, opts: { min: number; max: number; fallback?: number }): number | undefined {
  const raw = values[name];
  if (raw === undefined) return opts.fallback;
  const n = typeof raw === 'string' && DECIMAL_NUMBER.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n) || n < opts.min || n > opts.max) {
    throw new GymError('BAD_FLAG', `--${name} must be a number between ${opts.min} and ${opts.max}, got ${flagText(raw)}`);
  }
  return n;
}

export function requireFlag(values: Record<string, unknown>, name: string, usage: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new GymError('BAD_FLAG', `--${name} is required\n\n${usage}`);
  return v;
}

/** A repeatable `--<name> KEY=VALUE` flag as settings: VALUE as JSON when it parses, else the text itself. */
export function keyValueFlag(values: Record<string, unknown>, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of (values[name] as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new GymError('BAD_FLAG', `--${name} must be KEY=VALUE, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    try {
      out[pair.slice(0, eq)] = JSON.parse(raw);
    } catch {
      out[pair.slice(0, eq)] = raw;
    }
  }
  return out;
}
