// Command-line flags for the benchmark scripts: every flag is declared once with its default and help,
// and a bad value stops the script with a message naming the flag instead of a stack trace.
import { parseArgs } from 'node:util';
import { GymError, isGymError } from '../../src/errors';

type FlagSpec = { kind: 'int'; default: number; help: string; min?: number } | { kind: 'number'; default: number; help: string; min?: number } | { kind: 'string'; default: string; help: string };

type Values<S extends Record<string, FlagSpec>> = { [K in keyof S]: S[K] extends { kind: 'string' } ? string : number };

export function parseFlags<S extends Record<string, FlagSpec>>(usage: string, spec: S, argv = process.argv.slice(2)): Values<S> {
  const help = () => [usage, ...Object.entries(spec).map(([name, f]) => `  --${name.padEnd(14)} ${f.help} (default ${f.default})`)].join('\n');
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean' }, ...Object.fromEntries(Object.keys(spec).map((k) => [k, { type: 'string' as const }])) },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    throw new GymError('BAD_FLAG', `${(e as Error).message}\n${help()}`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${help()}\n`);
    process.exit(0);
  }
  const out: Record<string, number | string> = {};
  for (const [name, f] of Object.entries(spec)) {
    const raw = (parsed.values as Record<string, string | boolean | undefined>)[name] as string | undefined;
    if (raw === undefined) {
      out[name] = f.default;
      continue;
    }
    if (f.kind === 'string') {
      out[name] = raw;
      continue;
    }
    const n = Number(raw);
    const ok = raw.trim() !== '' && Number.isFinite(n) && (f.kind === 'number' || Number.isInteger(n)) && n >= (f.min ?? 0);
    if (!ok) throw new GymError('BAD_FLAG', `--${name} must be ${f.kind === 'int' ? 'an integer' : 'a number'} ≥ ${f.min ?? 0}, got "${raw}"`);
    out[name] = n;
  }
  return out as Values<S>;
}

/** Runs a benchmark's main function; a GymError becomes its message and exit status. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${isGymError(e) ? e.message : ((e as Error).stack ?? String(e))}\n`);
      process.exit(isGymError(e) ? e.exitStatus : 1);
    },
  );
}

/** The flags every rollout benchmark takes (peers and Gymflow alike), so all cases are run the same way. */
export const ROLLOUT_FLAGS = {
  rollouts: { kind: 'int', default: 500, min: 1, help: 'rollouts per repeat (the mcqa rows, repeated)' },
  concurrency: { kind: 'int', default: 64, min: 1, help: 'rollouts in flight at once' },
  'latency-ms': { kind: 'number', default: 0, help: "the mock model's delay per request" },
  repeats: { kind: 'int', default: 3, min: 1, help: 'runs; the medians are reported' },
} as const satisfies Record<string, FlagSpec>;
