// The artifacts of NeMo Gym's three conversational tool-use generator agents (domains, policy/tools,
// scenarios), each defined once: what a stage writes, and what the next stage's materializer reads. The
// rows are shaped as NeMo Gym's rollout rows (`reward`, `result`, the input fields carried through), so
// NeMo Gym's own materializers read Gymflow's artifacts and Gymflow's read NeMo Gym's. The final task rows
// are the environment's own SimulationTask.
import { z } from 'zod';
import { CustomerScenario as TaskScenario, ToolSignature } from '../../environments/conversational_tool_use_simulation/schema';

export const Profile = z.enum(['general', 'proactive']);
export type Profile = z.infer<typeof Profile>;

/** A domain candidate as the model wrote it: a name, the rest kept unchanged. */
export const DomainCandidate = z.looseObject({ name: z.string(), applications: z.array(z.unknown()).optional() });
export type DomainCandidate = z.infer<typeof DomainCandidate>;

const Identity = {
  id: z.string().nullish(),
  _ng_task_index: z.number().int().nullish(),
  _ng_rollout_index: z.number().int().nullish(),
  source_artifacts: z.record(z.string(), z.unknown()).optional(),
};

/** One chat exchange of a generator, kept in the artifact's trace. */
export const TraceCall = z.object({
  phase: z.string(),
  attempt: z.number().int().min(1),
  messages: z.array(z.object({ role: z.enum(['system', 'user']), content: z.string() })),
  reply: z.string().nullable(),
  error: z.string().nullish(),
});
export type TraceCall = z.infer<typeof TraceCall>;

/** Stage 1's rollout row: the candidates of all its phases, in order. */
export const DomainRollout = z.looseObject({
  ...Identity,
  reward: z.literal(1),
  result: z.object({ candidates: z.array(DomainCandidate) }),
  generation_trace: z.object({ followup_count: z.number().int().min(0), calls: z.array(TraceCall) }),
});
export type DomainRollout = z.infer<typeof DomainRollout>;

/** Stage 2's input row (NeMo Gym's domain_generation/materialize.py output). */
export const PolicyToolInput = z.looseObject({
  ...Identity,
  responses_create_params: z.looseObject({ input: z.array(z.unknown()) }),
  profile: Profile,
  domain: DomainCandidate,
  agent_ref: z.unknown().optional(),
});
export type PolicyToolInput = z.infer<typeof PolicyToolInput>;

/** A generated tool as NeMo Gym's permissive Tau2-compatible check accepts it. */
export const GeneratedTool = z.looseObject({
  name: z.string(),
  doc: z.string(),
  params: z.record(z.string(), z.unknown()).nullish(),
  returns: z.record(z.string(), z.unknown()).nullish(),
});
export type GeneratedTool = z.infer<typeof GeneratedTool>;

/** Stage 2's rollout row: one accepted policy and its tools. */
export const PolicyToolRollout = PolicyToolInput.extend({
  reward: z.literal(1),
  result: z.object({
    accepted: z.literal(true),
    profile: Profile,
    domain: DomainCandidate,
    attempt_count: z.number().int().min(1),
    policy_md: z.string().min(1),
    tools: z.array(GeneratedTool),
    tools_jsonl: z.string(),
  }),
  generation_trace: z.looseObject({ attempts: z.array(z.looseObject({ attempt: z.number().int() })) }),
});
export type PolicyToolRollout = z.infer<typeof PolicyToolRollout>;

/** Stage 3's input row (policy_tool_generation/materialize.py output). */
export const ScenarioInput = z.looseObject({
  ...Identity,
  responses_create_params: z.looseObject({ input: z.array(z.unknown()) }),
  profile: Profile,
  domain_name: z.string(),
  policy: z.string(),
  tools: z.array(GeneratedTool).default([]),
  agent_ref: z.unknown().optional(),
});
export type ScenarioInput = z.infer<typeof ScenarioInput>;

/** A scenario as the model must write it (NeMo Gym's CustomerScenario, with its field aliases). */
export const ModelScenario = z
  .looseObject({
    customer_persona: z.string().optional(),
    persona: z.string().optional(),
    reason_for_contact: z.string().optional(),
    reason_for_call: z.string().optional(),
    customer_details: z.string(),
    unknown_info: z.string().nullable().optional(),
    task_instructions: z.string(),
  })
  .superRefine((s, ctx) => {
    if (s.customer_persona === undefined && s.persona === undefined) ctx.addIssue({ code: 'custom', path: ['customer_persona'], message: 'is required (or persona)' });
    if (s.reason_for_contact === undefined && s.reason_for_call === undefined) ctx.addIssue({ code: 'custom', path: ['reason_for_contact'], message: 'is required (or reason_for_call)' });
  });
export const ModelScenarioCollection = z.object({ scenarios: z.array(ModelScenario) });

/** An accepted scenario: the seven fields the task row's customer_scenario holds. */
export const GeneratedScenario = z.object({
  customer_persona: z.string(),
  reason_for_contact: z.string(),
  customer_details: z.string(),
  unknown_info: z.string().nullable(),
  task_instructions: z.string(),
  representative_domain: z.string(),
  outside_policy_scope: z.boolean(),
});
export type GeneratedScenario = z.infer<typeof GeneratedScenario>;

/** Stage 3's rollout row: the domain's accepted scenarios, deduplicated. */
export const ScenarioRollout = ScenarioInput.extend({
  reward: z.literal(1),
  result: z.object({ domain_name: z.string(), scenarios: z.array(GeneratedScenario) }),
  generation_trace: z.looseObject({ calls: z.array(z.looseObject({ request_index: z.number().int(), outside_policy_scope: z.boolean() })) }),
});
export type ScenarioRollout = z.infer<typeof ScenarioRollout>;

export { TaskScenario, ToolSignature };
