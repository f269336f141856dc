// Validation at the sandbox layer's edge: a spec, an exec request or a provider's options that do not
// fit their schema become one BAD_INPUT naming the field, never a zod stack.
import type { z } from 'zod';
import { GymError } from '../errors';

/** `what` names the input in the message, e.g. `sandbox spec`, `docker sandbox provider option`. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_INPUT', `${what} field "${issue.path.join('.') || '(root)'}": ${issue.message}`);
  }
  return parsed.data;
}
