// image_tools (NeMo Gym's PivotRL image-tools verifier): one decision point of a VLM image-tool trajectory,
// the demonstrated prefix replayed; the model's one image-tool call is scored against the demonstrated one.
import { z } from 'zod';
import { jsonDumps } from '../../python/json';
import type { ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { loads, parseImageToolCalls } from './calls';
import { argumentScore, Overflow, sameTarget, sameTool, toolFamily, type Family } from './score';

export const ImageToolsTask = TaskRow.extend({
  uuid: z.union([z.string(), z.number().int()]).nullish(),
  /** The demonstrated call `{name, arguments}` (arguments may be JSON text); also read from metadata or expected_answer. */
  expected_action: z.record(z.string(), z.unknown()).nullish(),
  expected_answer: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type ImageToolsTask = z.infer<typeof ImageToolsTask>;

const Settings = z.object({
  /** binary: 1 when the argument score reaches the threshold; continuous: the score itself. */
  reward_mode: z.enum(['binary', 'continuous']).default('binary'),
  enable_target_match: z.boolean().default(true),
  argument_threshold: z.number().default(0.5),
  numeric_tolerance: z.number().default(1e-6),
  penalize_extra_tool_calls: z.boolean().default(true),
  unify_region_inspect_tools: z.boolean().default(true),
});
type Settings = z.infer<typeof Settings>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const truthyObject = (v: unknown): v is Record<string, unknown> => isObject(v) && Object.keys(v).length > 0;

/** The demonstrated action: expected_action, else metadata.expected_action, else expected_answer as JSON; null when none names a tool. */
export function expectedAction(task: ImageToolsTask): { name: string; arguments: Record<string, unknown> } | null {
  const candidates: unknown[] = [];
  if (truthyObject(task.expected_action)) candidates.push(task.expected_action);
  if (truthyObject(task.metadata)) candidates.push(task.metadata.expected_action);
  if (task.expected_answer) {
    const parsed = loads(task.expected_answer);
    if (parsed !== undefined) candidates.push(parsed);
  }
  for (const c of candidates) {
    if (!isObject(c) || !c.name) continue;
    let args = c.arguments;
    if (typeof args === 'string') args = loads(args) ?? {};
    return { name: typeof c.name === 'string' ? c.name : jsonDumps(c.name), arguments: isObject(args) ? args : {} };
  }
  return null;
}

/** Every text the response's items carry (message parts, reasoning text), one per line, as the verifier reads them. */
export function assistantText(response: ResponseObject): string {
  const parts: string[] = [];
  for (const item of response.output as { content?: unknown }[]) {
    if (typeof item.content === 'string') parts.push(item.content);
    else if (Array.isArray(item.content)) for (const chunk of item.content as { text?: unknown }[]) if (typeof chunk?.text === 'string') parts.push(chunk.text);
  }
  return parts.join('\n');
}

const withoutLabels = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'label' && k !== 'labels'));

export function createImageTools(options: Partial<Settings> = {}) {
  const settings = Settings.parse(options);
  return defineEnvironment<ImageToolsTask>({
    name: 'image_tools',
    description: "PivotRL image-tool decisions: the model's one image-tool call at a demonstrated turn, scored on tool, target image and argument (IoU, distance, colour).",
    taskSchema: ImageToolsTask,
    agent: 'non_executing_agent',
    configurable: { schema: Settings, create: createImageTools },
    verify(task, response) {
      const result = {
        reward: 0,
        uuid: task.uuid ?? null,
        expected_action: task.expected_action ?? null,
        model_output: '',
        tool_name_match: false,
        rollout_tool_name: null as string | null,
        expected_tool_name: null as string | null,
        target_match: null as boolean | null,
        argument_score: null as number | null,
        argument_detail: null as string | null,
        tool_family: null as Family | null,
        num_rollout_tool_calls: 0,
        pivot_failure: 'none',
        metadata: task.metadata ?? null,
      };
      let penalized = false;
      // NeMo Gym's own code stays in pivot_failure ("none" when it found nothing wrong, even for a penalised burst).
      const done = () => {
        const failure_reason = result.pivot_failure !== 'none' ? result.pivot_failure : penalized ? 'extra_tool_calls' : undefined;
        return { ...result, ...(failure_reason ? { failure_reason } : {}) };
      };
      try {
        const expected = expectedAction(task);
        if (!expected) return ((result.pivot_failure = 'expected_action_invalid'), done());
        const text = assistantText(response);
        const calls = parseImageToolCalls(text);
        result.num_rollout_tool_calls = calls.length;
        if (!calls.length) {
          result.pivot_failure = 'no_tool_call_in_rollout';
          result.model_output = [...text].slice(-500).join('');
          return done();
        }
        // The demonstrated pivot is one action: the first call is scored.
        const call = calls[0]!;
        if (!isObject(call.arguments)) throw new TypeError('arguments is not an object');
        const name = typeof call.name === 'string' ? call.name : jsonDumps(call.name);
        const rArgs = withoutLabels(call.arguments);
        const eArgs = withoutLabels(expected.arguments);
        result.model_output = `${name}(${[...jsonDumps(rArgs)].slice(0, 400).join('')})`;
        result.rollout_tool_name = name;
        result.expected_tool_name = expected.name;
        const family = toolFamily(expected.name);
        result.tool_family = family;
        result.tool_name_match = sameTool(name, expected.name, settings.unify_region_inspect_tools);
        if (!result.tool_name_match) return ((result.pivot_failure = 'tool_name_mismatch'), done());
        if (settings.enable_target_match) {
          result.target_match = sameTarget(family, rArgs, eArgs);
          if (!result.target_match) return ((result.pivot_failure = 'target_mismatch'), done());
        }
        const [score, detail] = argumentScore(family, rArgs, eArgs, settings.numeric_tolerance);
        result.argument_score = score;
        result.argument_detail = detail;
        result.reward = settings.reward_mode === 'binary' ? (score >= settings.argument_threshold ? 1 : 0) : score;
        if (score < settings.argument_threshold) result.pivot_failure = 'argument_below_threshold';
        // A burst of calls is off-policy even when the first is right.
        if (settings.penalize_extra_tool_calls && calls.length > 1) {
          penalized = true;
          result.reward = 0;
        }
      } catch (e) {
        if (!(e instanceof TypeError || e instanceof Overflow)) throw e;
        result.reward = 0;
        result.pivot_failure = 'unknown_error';
      }
      return done();
    },
  });
}

export const imageTools = createImageTools();
