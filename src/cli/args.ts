// Flag parsing for every command: node's parseArgs, with each mistake turned into a message that
// names the flag, and typed readers for numbers.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GymError } from '../errors';

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (e) {
    throw new GymError('BAD_FLAG', `${(e as Error).message.replace(/\. To specify.*$/s, '')}\n\n${usage}`);
  }
}

export function intFlag(values: Record<string, unknown>, name: string, opts: { min?: number; max?: number; fallback?: number } = {}): number | undefined {
  const raw = values[name];
  if (raw === undefined) return opts.fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
    const range = [opts.min !== undefined ? ` ≥ ${opts.min}` : '', opts.max !== undefined ? ` ≤ ${opts.max}` : ''].filter(Boolean).join(' and');
    throw new GymError('BAD_FLAG', `--${name} must be an integer${range}, got "${String(raw)}"`);
  }
  return n;
}

export function numberFlag(values: Record<string, unknown>, name: string, opts: { min: number; max: number; fallback?: number }): number | undefined {
  const raw = values[name];
  if (raw === undefined) return opts.fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < opts.min || n > opts.max) {
    throw new GymError('BAD_FLAG', `--${name} must be a number between ${opts.min} and ${opts.max}, got "${String(raw)}"`);
  }
  return n;
}

export function requireFlag(values: Record<string, unknown>, name: string, usage: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new GymError('BAD_FLAG', `--${name} is required\n\n${usage}`);
  return v;
}
