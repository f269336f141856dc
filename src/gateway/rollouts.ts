// Rollout attempts registered with the gateway: what a rollout-scoped base URL (`/r/<id>/v1`) stands for,
// so a call from any client pointed there is tied to its rollout and attempt and logged into its run folder.
import { z } from 'zod';
import { GymError } from '../errors';

/** Safe in a URL path segment without escaping, and short enough for a log line. */
const ATTEMPT_ID = /^[A-Za-z0-9._~-]{1,200}$/;

export const RolloutRegistration = z.strictObject({
  /** The id in the URL; defaults to `<rollout_id>.a<attempt>`. */
  id: z.string().regex(ATTEMPT_ID, 'letters, digits and . _ ~ - only, at most 200 characters').optional(),
  rollout_id: z.string().min(1),
  attempt: z.number().int().min(1).default(1),
  /** The run folder whose model_calls/ receives every call made through the URL. */
  run_dir: z.string().min(1),
  /** The gateway's name of the model to serve when a call names a model the gateway does not know. */
  model: z.string().min(1).optional(),
  /** What the calls are for: the health checks count only policy calls against a rollout's record. */
  role: z.enum(['policy', 'judge']).default('policy'),
  /** Stops a runaway loop: calls beyond this many are refused with `rollout_cap_exceeded`. */
  max_model_calls: z.number().int().min(1).optional(),
  /** Generated tokens the attempt may use in all; each call's max tokens is lowered to what is left. */
  max_generated_tokens: z.number().int().min(1).optional(),
  /** The task row the attempt plays: what a `rules` routing strategy reads for calls through the URL. */
  task: z.record(z.string(), z.unknown()).optional(),
});
export type RolloutRegistration = z.infer<typeof RolloutRegistration>;
export type RolloutRegistrationInput = z.input<typeof RolloutRegistration>;

export interface RolloutScope extends Omit<RolloutRegistration, 'id'> {
  id: string;
  /** Calls made through this scope so far: the `step` of the next one's log line. */
  calls: number;
  /** Calls handed to a backend so far, and the tokens they generated: what the caps count. */
  modelCalls: number;
  generatedTokens: number;
}

export function attemptId(rolloutId: string, attempt: number): string {
  return `${rolloutId}.a${attempt}`;
}

export function parseRegistration(input: unknown): RolloutRegistration {
  const parsed = RolloutRegistration.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(registration)'}: ${i.message}`);
    throw new GymError('BAD_INPUT', `invalid rollout registration: ${details.join('; ')}`, details);
  }
  const id = parsed.data.id ?? attemptId(parsed.data.rollout_id, parsed.data.attempt);
  if (!ATTEMPT_ID.test(id)) {
    throw new GymError('BAD_INPUT', `invalid rollout registration: rollout_id "${parsed.data.rollout_id}" cannot form a URL id; give an "id" of letters, digits and . _ ~ -`);
  }
  return { ...parsed.data, id };
}

/** The rollout attempts a gateway currently serves, by URL id. */
export class RolloutTable {
  private readonly scopes = new Map<string, RolloutScope>();

  /** Registering the same id again (a retried activity) replaces it but keeps counting its calls (and what the caps count). */
  add(registration: RolloutRegistration): RolloutScope {
    const known = this.scopes.get(registration.id!);
    const scope: RolloutScope = {
      ...registration,
      id: registration.id!,
      calls: known?.calls ?? 0,
      modelCalls: known?.modelCalls ?? 0,
      generatedTokens: known?.generatedTokens ?? 0,
    };
    this.scopes.set(scope.id, scope);
    return scope;
  }

  get(id: string): RolloutScope | undefined {
    return this.scopes.get(id);
  }

  remove(id: string): boolean {
    return this.scopes.delete(id);
  }
}
