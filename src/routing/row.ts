// The environment a routed row is played against, stamped on the row itself (`_gf_environment`), so a run
// over several environments needs nothing beyond its task file: every step, the mock and the metrics read it.
import { EnvRef } from '../environments/ref';
import { resolveEnvironment } from '../environments/registry';
import type { AnyEnvironment } from '../environments/types';
import { GymError } from '../errors';

export const ROW_ENVIRONMENT = '_gf_environment';

/** The row's own environment reference, when routing stamped one. */
export function rowEnvRef(row: Record<string, unknown>): EnvRef | undefined {
  const stamped = row[ROW_ENVIRONMENT];
  if (stamped === undefined) return undefined;
  const parsed = EnvRef.safeParse(stamped);
  if (!parsed.success) throw new GymError('BAD_INPUT', `${ROW_ENVIRONMENT}: not an environment reference (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/** The environment that plays the row: its stamped one, else the run's. */
export function environmentOfRow(row: Record<string, unknown>, runEnv: AnyEnvironment): AnyEnvironment {
  const ref = rowEnvRef(row);
  return ref ? resolveEnvironment(ref) : runEnv;
}
