// The flags that name failure classes (`--class`, `--count-as-zero`) and give a class its own retry
// backoff (`--backoff`), each checked against the taxonomy so a typo is refused, never ignored.
import { GymError } from '../errors';
import { FailureClass } from '../schemas/records';
import type { ClassRetry, RetrySettings } from '../../workflows/definitions';

export const FAILURE_CLASS_NAMES = FailureClass.options.join(', ');

/** Classes from a flag given once or more, each a comma-separated list; undefined when it was not given. */
export function failureClassesFlag(values: Record<string, unknown>, name: string): FailureClass[] | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const items = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((s) => s.trim());
  const classes = new Set<FailureClass>();
  for (const item of items) {
    const parsed = FailureClass.safeParse(item);
    if (!parsed.success) throw new GymError('BAD_FLAG', `--${name}: unknown failure class ${JSON.stringify(item)}; the classes are ${FAILURE_CLASS_NAMES}`);
    classes.add(parsed.data);
  }
  return [...classes].sort();
}

const BACKOFF = /^([a-z_]+)=(\d+)(?::(\d+))?(?::(\d+))?$/;

export const BACKOFF_USAGE = `  --backoff CLASS=A[:INITIAL_MS[:MAX_MS]]   failures of CLASS get A attempts per step and their own bounded
                       exponential backoff (repeatable; classes: ${FAILURE_CLASS_NAMES})`;

/** `--backoff model_error=5:2000:60000` (repeatable): each class's own attempts and backoff bounds. */
export function backoffFlag(values: Record<string, unknown>): RetrySettings['byClass'] {
  const raw = values.backoff;
  if (raw === undefined) return undefined;
  const out: NonNullable<RetrySettings['byClass']> = {};
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    const m = BACKOFF.exec(String(item));
    if (!m) throw new GymError('BAD_FLAG', `--backoff must be CLASS=ATTEMPTS[:INITIAL_MS[:MAX_MS]], got ${JSON.stringify(String(item))}`);
    const parsed = FailureClass.safeParse(m[1]);
    if (!parsed.success) throw new GymError('BAD_FLAG', `--backoff: unknown failure class ${JSON.stringify(m[1])}; the classes are ${FAILURE_CLASS_NAMES}`);
    const [attempts, initial, max] = [m[2], m[3], m[4]].map((v) => (v === undefined ? undefined : Number(v)));
    if (attempts! < 1 || initial === 0 || max === 0) throw new GymError('BAD_FLAG', `--backoff ${item}: attempts and intervals must be at least 1`);
    if (initial !== undefined && max !== undefined && max < initial) throw new GymError('BAD_FLAG', `--backoff ${item}: MAX_MS must not be below INITIAL_MS`);
    const settings: ClassRetry = { maximumAttempts: attempts };
    if (initial !== undefined) settings.initialIntervalMs = initial;
    if (max !== undefined) settings.maximumIntervalMs = max;
    out[parsed.data] = settings;
  }
  return out;
}
