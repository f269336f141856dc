// AgentIF's task rows: NeMo Gym keeps everything in verifier_metadata, where verify reads the constraints;
// each constraint is a pipeline of judge and code steps, grouped for the metrics by dimension and type.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';

export const AgentIFStep = z.looseObject({
  /** `llm` rewrites the text to the judge's reply, `llm_conditional_check` gates the constraint, `code` runs check_following. */
  type: z.enum(['llm', 'llm_conditional_check', 'code']),
  /** The judge prompt (with `{response}` slots) or the checker's Python source. */
  exec: z.string().default(''),
});
export type AgentIFStep = z.infer<typeof AgentIFStep>;

export const AgentIFConstraint = z.looseObject({
  id: z.number().int().nullish(),
  desc: z.string().nullish(),
  /** unconditional, conditional or example_driven (others are scored but not broken down). */
  dimension: z.string().nullish(),
  /** formatting, semantic or resource, or a list of them. */
  type: z.union([z.string(), z.array(z.string())]).nullish(),
  evaluation: z.array(AgentIFStep).default([]),
});
export type AgentIFConstraint = z.infer<typeof AgentIFConstraint>;

export const AgentIFTask = TaskRow.extend({
  verifier_metadata: z
    .looseObject({
      constraints: z.array(AgentIFConstraint).nullish(),
      query_id: z.number().int().nullish(),
      turn_id: z.number().int().nullish(),
      domain: z.string().nullish(),
      agent_name: z.string().nullish(),
      prompt_type: z.string().nullish(),
    })
    .nullish(),
});
export type AgentIFTask = z.infer<typeof AgentIFTask>;
