// A rollout's trace identity, derived from the run's epoch and the rollout id alone, so every step of a
// rollout (in any process, after any crash or resume) lands in one trace under one root span. Pure.
import { createHash } from 'node:crypto';

export interface RolloutTraceIds {
  /** 32 hex digits. */
  traceId: string;
  /** The root span's id, 16 hex digits. */
  spanId: string;
}

/** Never all zeros: W3C trace context treats an all-zero id as invalid. */
export function rolloutTraceIds(epoch: string, rolloutId: string): RolloutTraceIds {
  const digest = createHash('sha256').update(`gymflow-rollout\0${epoch}\0${rolloutId}`).digest('hex');
  const nonZero = (hex: string) => (/^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex);
  return { traceId: nonZero(digest.slice(0, 32)), spanId: nonZero(digest.slice(32, 48)) };
}
