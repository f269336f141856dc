// NeMo Gym's image-tools agent (responses_api_agents/image_tools_agent) over a base environment: the model may zoom
// or crop the task's images through `<tool_call>` text between its turns, and verify adds the agent's tool reward to
// the base environment's. Played turn by turn (each tool reply is an environment step), so no workflow changes.
import { z } from 'zod';
import { imageDataUri, imageToolsMemory, imageToolsRunner, hasMalformedImageToolMarkup, ImageToolsAgentSettings, type ImageToolsMemory } from '../../agents/image-tools';
import { GymError } from '../../errors';
import { isMessage, type ConversationItem, type ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { parseImageToolCalls } from '../image_tools/calls';
import { defineEnvironment } from '../define';
import type { AnyEnvironment } from '../types';

/** NeMo Gym's resource_servers_by_agent: the row's base agent name to the environment that seeds and verifies it. */
export const BASE_ENVIRONMENTS: Readonly<Record<string, string>> = {
  string_match_simple_agent: 'string_match',
  math_with_judge_simple_agent: 'math_with_judge',
  mcqa_simple_agent: 'mcqa',
  gui_coordinate_simple_agent: 'gui_coordinate',
};

const Settings = ImageToolsAgentSettings.extend({
  resource_servers_by_agent: z.record(z.string(), z.string().min(1)).default(BASE_ENVIRONMENTS),
});
type Settings = z.infer<typeof Settings>;

const BaseAgentRef = z.looseObject({ type: z.string().optional(), name: z.string().min(1) });

/** What the agent keeps between turns: the base environment's session, its own memory and the running reward. */
export interface ImageToolsAgentState {
  base: unknown;
  memory: ImageToolsMemory;
  steps: number;
  aux_reward: number;
  /** The images each model call was newly shown (the first: none), as NeMo Gym's image_tools_generation_image_paths. */
  generation_image_paths: string[][];
}

/** Every image the task's input shows (input_image, image_url or image parts), in order: img_idx 0, 1, … */
export function inputImageRefs(input: unknown): string[] {
  if (typeof input === 'string' || !Array.isArray(input)) return [];
  const refs: string[] = [];
  for (const item of input as Record<string, unknown>[]) {
    if (!Array.isArray(item?.content)) continue;
    for (const part of item.content as Record<string, unknown>[]) {
      if (!part || typeof part !== 'object' || !['input_image', 'image_url', 'image'].includes(part.type as string)) continue;
      let url = part.image_url ?? part.image ?? '';
      if (url && typeof url === 'object') url = (url as { url?: unknown }).url ?? '';
      if (typeof url === 'string' && url) refs.push(url);
    }
  }
  return refs;
}

/** The text of a turn's assistant messages, one per line, stripped (NeMo Gym's _extract_text_from_response). */
function assistantText(items: readonly ConversationItem[]): string {
  const texts: string[] = [];
  for (const item of items) {
    if (!isMessage(item) || item.role !== 'assistant') continue;
    const content = (item as { content: unknown }).content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === 'string') texts.push(part.text);
  }
  return texts.join('\n').trim();
}

/** The last assistant message alone, which the base environment grades (NeMo Gym's _final_assistant_response). */
function finalAnswer(response: ResponseObject): ResponseObject {
  const last = [...response.output].reverse().find((i) => isMessage(i) && i.role === 'assistant');
  return last ? { ...response, output: [last] } : response;
}

/** Finds a base environment by name: the registry's lookup, passed in because the registry lists this environment too. */
export type EnvironmentLookup = (name: string) => AnyEnvironment;

export function createImageToolsAgent(lookup: EnvironmentLookup, options: Partial<Settings> = {}): AnyEnvironment {
  const settings = Settings.parse(options);
  const runner = imageToolsRunner(settings);

  const baseOf = (ref: { name: string }): AnyEnvironment => {
    const name = settings.resource_servers_by_agent[ref.name];
    if (!name) throw new GymError('BAD_TASK', `no environment is mapped to base agent "${ref.name}" (resource_servers_by_agent: ${Object.keys(settings.resource_servers_by_agent).join(', ')})`);
    const env = lookup(name);
    if (env.agent !== 'simple_agent' || Object.keys(env.tools).length || env.sandboxed) {
      throw new GymError('BAD_TASK', `environment ${name} cannot be wrapped by the image-tools agent: it needs its own tools, turns or sandbox`);
    }
    return env;
  };

  // The row as its base environment reads it, with the agent's stop strings and output cap on its request.
  const taskSchema = TaskRow.extend({ image_tools_base_agent_ref: BaseAgentRef })
    .loose()
    .transform((row, ctx) => {
      let base: AnyEnvironment;
      try {
        base = baseOf(row.image_tools_base_agent_ref);
      } catch (e) {
        ctx.addIssue({ code: 'custom', path: ['image_tools_base_agent_ref', 'name'], message: (e as Error).message });
        return z.NEVER;
      }
      const parsed = base.taskSchema.safeParse(row);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        ctx.addIssue({ code: 'custom', path: issue.path, message: `${base.name}: ${issue.message}` });
        return z.NEVER;
      }
      const params = parsed.data.responses_create_params;
      return {
        ...parsed.data,
        image_tools_base_agent_ref: row.image_tools_base_agent_ref,
        responses_create_params: {
          ...params,
          ...(params.max_output_tokens == null && settings.max_output_tokens != null ? { max_output_tokens: settings.max_output_tokens } : {}),
          ...(settings.stop_strings.length ? { stop: settings.stop_strings } : {}),
        },
      } as TaskRow & { image_tools_base_agent_ref: z.infer<typeof BaseAgentRef> };
    });
  type Task = z.output<typeof taskSchema>;

  const start = async (task: Task): Promise<ImageToolsAgentState> => ({
    base: await baseOf(task.image_tools_base_agent_ref).seedSession(task),
    memory: imageToolsMemory(inputImageRefs(task.responses_create_params.input), String((task as { dataset?: unknown }).dataset ?? 'unknown')),
    steps: 0,
    aux_reward: 0,
    generation_image_paths: [[]],
  });

  return defineEnvironment<Task, ImageToolsAgentState>({
    name: 'image_tools_agent',
    description: "NeMo Gym's image-tools agent: zoom/crop the task's images via <tool_call> text, base environment's reward + tool reward.",
    taskSchema: taskSchema as unknown as z.ZodType<Task>,
    agent: 'gymnasium_agent',
    // Verify reads the tool reward the episode earned, which only the played session holds.
    reverifyMode: 'stateful',
    configurable: { schema: Settings, create: (o) => createImageToolsAgent(lookup, o) },
    seedSession: start,
    async reset(task) {
      return { state: await start(task), items: [] };
    },
    async step(_task, state, turn) {
      const text = assistantText(turn);
      const steps = state.steps + 1;
      const played = await runner.turn(text, state.memory);
      let aux = state.aux_reward + played.reward;
      const memory = played.memory ?? state.memory;
      const attempted = parseImageToolCalls(text).length > 0 || hasMalformedImageToolMarkup(text);
      if (!attempted || played.done || played.memory === null) return { state: { ...state, steps, aux_reward: aux, memory }, items: [], done: true };
      const shown = typeof played.observation === 'string' ? [] : played.observation.flatMap((p) => (p.type === 'image' ? [p.image] : []));
      const content =
        typeof played.observation === 'string'
          ? played.observation
          : await Promise.all(
              played.observation.map(async (p) =>
                p.type === 'text' ? { type: 'input_text', text: p.text } : { type: 'input_image', image_url: await imageDataUri(p.image, settings.crop_format), detail: 'auto' },
              ),
            );
      // The cap holds the running tool reward at each turn that showed a new image; penalties pull below it.
      if (shown.length) aux = Math.min(aux, settings.tool_success_reward_cap);
      const next = { base: state.base, memory, steps, aux_reward: aux, generation_image_paths: [...state.generation_image_paths, shown] };
      return { state: next, items: [{ type: 'message', role: 'user', content } as ConversationItem], done: steps >= settings.max_steps };
    },
    async verify(task, response, { state, judge }) {
      const base = baseOf(task.image_tools_base_agent_ref);
      const played = state ?? (await start(task));
      const result = await base.verify(task, finalAnswer(response), { state: played.base, judge });
      return {
        ...result,
        base_reward: result.reward,
        image_tools_aux_reward: played.aux_reward,
        reward: result.reward + played.aux_reward,
        image_tools_base_agent_ref: task.image_tools_base_agent_ref,
        image_tools_call_count: played.memory.tool_call_count,
        image_tools_error_count: played.memory.tool_error_count,
        image_tools_output_paths: played.memory.crop_paths,
        image_tools_generation_image_paths: played.generation_image_paths,
      };
    },
  });
}
