// The task row of conversational_tool_use_simulation (NeMo Gym's task_data): a domain policy, the domain's
// generated tools, and the customer scenario the simulated customer plays. The row's policy prompt and
// tools must be the ones rendered from these fields, as NeMo Gym's policy agent demands before it seeds.
import { z } from 'zod';
import { jsonDumps } from '../../python/json';
import { inputItems } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { policySystemPrompt, responsesTool } from './prompts';

const JsonSchemaObject = z.record(z.string(), z.unknown());

/** One generated tool; `doc`/`params` win over `description`/`parameters` (rows carry both spellings). */
export const ToolSignature = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: JsonSchemaObject.nullish(),
  /** JSON Schema of the result; the simulated result must satisfy it. */
  returns: JsonSchemaObject.nullish(),
  strict: z.boolean().default(true),
  doc: z.string().nullish(),
  params: JsonSchemaObject.nullish(),
});
export type ToolSignature = z.infer<typeof ToolSignature>;

export const CustomerScenario = z.looseObject({
  customer_persona: z.string().default(''),
  reason_for_contact: z.string().default(''),
  customer_details: z.string().default(''),
  /** What the customer does not know; null in some rows. */
  unknown_info: z.string().nullish(),
  task_instructions: z.string().default(''),
  representative_domain: z.string().nullish(),
  /** Ground truth for the transfer gate: the representative should transfer this customer. */
  outside_policy_scope: z.boolean().nullish(),
});
export type CustomerScenario = z.infer<typeof CustomerScenario>;

/** The roles of the prefilled history NeMo Gym can hydrate; Gymflow starts every conversation from its policy prompt. */
const POLICY_ONLY_ROLES = new Set(['system', 'developer']);

const sameJson = (a: unknown, b: unknown) => jsonDumps(a, { sortKeys: true }) === jsonDumps(b, { sortKeys: true });

export const SimulationTask = TaskRow.extend({
  policy: z.string(),
  domain_name: z.string().default(''),
  profile: z.enum(['general', 'proactive']).nullish(),
  tools: z.array(ToolSignature).default([]),
  customer_scenario: CustomerScenario.default(CustomerScenario.parse({})),
  source_artifacts: z.record(z.string(), z.unknown()).default({}),
  /** A canned first customer message instead of a simulated one. */
  initial_user_message: z.string().nullish(),
  id: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
}).superRefine((task, ctx) => {
  const params = task.responses_create_params;
  const items = inputItems(params.input);
  const names = task.tools.map((t) => t.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) ctx.addIssue({ code: 'custom', path: ['tools'], message: `tool "${duplicate}" is defined twice` });
  const conversation = items.filter((i) => !POLICY_ONLY_ROLES.has((i as { role?: string }).role ?? '') && i.type !== 'reasoning');
  if (conversation.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['responses_create_params', 'input'],
      message: 'holds conversation history; prefilled conversations are not supported, the simulated customer opens every one',
    });
  }
  const prompts = items.filter((i) => POLICY_ONLY_ROLES.has((i as { role?: string }).role ?? '')).map((i) => (i as { content?: unknown }).content);
  if (prompts.length !== 1 || prompts[0] !== policySystemPrompt(task.policy, !!params.parallel_tool_calls)) {
    ctx.addIssue({ code: 'custom', path: ['responses_create_params', 'input'], message: 'must hold exactly one system prompt, the one rendered from `policy` (prompts/policy.txt)' });
  }
  if (!sameJson(params.tools ?? [], task.tools.map(responsesTool)) || !task.tools.length) {
    ctx.addIssue({ code: 'custom', path: ['responses_create_params', 'tools'], message: 'must be the function tools rendered from `tools`, in order' });
  }
});
export type SimulationTask = z.infer<typeof SimulationTask>;
