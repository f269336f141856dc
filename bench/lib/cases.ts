// The shared shape of every benchmark: run a case several times, take the median of each figure, and
// print one JSON line that says what was measured, on which machine, when and with which command.
import os from 'node:os';
import { readFileSync } from 'node:fs';

/** What one repeat of a case returns: how many units it did, and any other figures (all numbers). */
export interface Sample {
  units: number;
  /** Wall seconds of the measured part; measure() times the whole call when it is left out. */
  seconds?: number;
  [figure: string]: number | undefined;
}

export interface CaseResult {
  case: string;
  /** What a unit is, e.g. "rollouts", "workflow executions"; the rate is units per second. */
  unit: string;
  params: Record<string, unknown>;
  repeats: number;
  /** Median of each figure over the repeats; `per_second` is the median of the repeats' rates. */
  median: Record<string, number>;
  runs: Array<Record<string, number>>;
  /** 1-minute load average before the first and after the last repeat: shows a machine shared with other work. */
  load: { before: number; after: number };
}

export interface MeasureOptions {
  unit: string;
  params?: Record<string, unknown>;
  repeats?: number;
  /** Called before each repeat, outside the timing (e.g. to reset a server). */
  before?: (repeat: number) => Promise<void>;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` `repeats` times (default 3), one after another, and reports the medians. */
export async function measure(name: string, fn: (repeat: number) => Promise<Sample>, opts: MeasureOptions): Promise<CaseResult> {
  const repeats = opts.repeats ?? 3;
  const runs: Array<Record<string, number>> = [];
  const loadBefore = os.loadavg()[0]!;
  for (let repeat = 0; repeat < repeats; repeat++) {
    await opts.before?.(repeat);
    const started = performance.now();
    const sample = await fn(repeat);
    const seconds = sample.seconds ?? (performance.now() - started) / 1000;
    const run: Record<string, number> = {};
    for (const [k, v] of Object.entries(sample)) if (typeof v === 'number') run[k] = round(v);
    run.seconds = round(seconds);
    run.per_second = round(sample.units / seconds);
    runs.push(run);
    process.stderr.write(`${name} #${repeat + 1}: ${JSON.stringify(run)}\n`);
  }
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  const medianOf = Object.fromEntries(keys.map((k) => [k, round(median(runs.map((r) => r[k]!).filter((v) => v !== undefined)))]));
  return { case: name, unit: opts.unit, params: opts.params ?? {}, repeats, median: medianOf, runs, load: { before: round(loadBefore), after: round(os.loadavg()[0]!) } };
}

export interface Machine {
  cores: number;
  cpu: string;
  memory_gib: number;
  os: string;
  node: string;
}

export function machine(): Machine {
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    memory_gib: round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

/** Prints the one JSON line a benchmark script ends with. */
export function printResults(bench: string, cases: CaseResult[], extra: Record<string, unknown> = {}): void {
  const line = {
    bench,
    date: new Date().toISOString(),
    command: commandLine(),
    machine: machine(),
    ...extra,
    cases,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function commandLine(): string {
  // process.argv drops node's own flags (--import tsx); /proc keeps the command exactly as typed.
  try {
    return readFileSync('/proc/self/cmdline', 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return process.argv.join(' ');
  }
}

function round(v: number): number {
  return Number.isFinite(v) ? Number(v.toPrecision(6)) : v;
}
