// The flags that bound each call to the model and the judge (connect, first byte, idle, total), and
// their YAML keys under `openai: {timeouts: …}`; unset flags keep the backend's defaults.
import { GymError } from '../errors';
import { ModelTimeouts } from '../gateway/spec';
import { intFlag } from './args';

/** Each bound's key in the model spec, and its flag. */
export const TIMEOUT_FLAGS = {
  connect_ms: 'model-connect-timeout-ms',
  first_byte_ms: 'model-first-byte-timeout-ms',
  idle_ms: 'model-idle-timeout-ms',
  total_ms: 'model-total-timeout-ms',
} as const;

/** Under the 30 minutes a turn's step may take, so the gateway, not Temporal, reports the timeout. */
const MAX_MS = 1_500_000;

/** The bounds a user set, defaults filled in; undefined when none is set, so the spec hashes as before. */
export function modelTimeouts(values: Record<string, unknown>): ModelTimeouts | undefined {
  const set = Object.entries(TIMEOUT_FLAGS).filter(([, flag]) => values[flag] !== undefined);
  if (set.length === 0) return undefined;
  const timeouts = ModelTimeouts.parse(Object.fromEntries(set.map(([key, flag]) => [key, intFlag(values, flag, { min: 1, max: MAX_MS })])));
  if (timeouts.total_ms < Math.max(timeouts.connect_ms, timeouts.first_byte_ms)) {
    throw new GymError(
      'BAD_FLAG',
      `--${TIMEOUT_FLAGS.total_ms} (${timeouts.total_ms} ms) must be at least --${TIMEOUT_FLAGS.connect_ms} (${timeouts.connect_ms}) and --${TIMEOUT_FLAGS.first_byte_ms} (${timeouts.first_byte_ms})`,
    );
  }
  return timeouts;
}
