// The verify contract: the request is the task row plus the whole episode (`response`); the reply
// echoes the row and adds `reward`, optional `reward_components`, and env-specific fields.
import { z } from 'zod';
import { ResponseObject } from './responses';
import { TaskRow } from './task';

export const VerifyRequest = TaskRow.extend({ response: ResponseObject });
export type VerifyRequest = z.infer<typeof VerifyRequest>;

export const VerifyResult = z.looseObject({
  reward: z.number(),
  reward_components: z.record(z.string(), z.number()).optional(),
  // NeMo Gym's is Optional[str]: its servers answer null when nothing went wrong.
  failure_reason: z.string().nullish(),
});
export type VerifyResult = z.infer<typeof VerifyResult>;
