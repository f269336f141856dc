// What an external harness is given to play one task: a sandboxed task's repository, or for a text task
// (NeMo Gym's "<harness>_reasoning_gym"/"<harness>_math") an empty folder; and its prompt, built as NeMo Gym's harness agents build it.
import { GymError } from '../errors';
import type { AnyEnvironment, SandboxedTasks } from '../environments/types';
import type { ResponseCreateParams } from '../schemas/responses';
import type { HarnessAdapter } from './types';

/** A text task's working folder: empty, so the harness has somewhere to run its scratch code. */
export const TEXT_TASK_WORKDIR = '/workspace';

/**
 * Why no harness can play the environment's tasks, or undefined when one can: sandboxed tasks in their
 * repository, or tool-free text tasks whose final answer the environment's own verify grades.
 */
export function harnessRefusal(env: AnyEnvironment, harness?: Pick<HarnessAdapter, 'name' | 'playsEnvironmentTools'>): string | undefined {
  if (harness?.playsEnvironmentTools && env.sandboxed) {
    return `environment ${env.name}'s tasks are repositories in a sandbox, and ${harness.name} is offered only the environment's own tools (it has no shell); play it with a coding harness (pi, opencode, codex, claude-code, kilo, cline or openclaw)`;
  }
  if (env.sandboxed) return undefined;
  if (env.reset || env.step || env.agent === 'gymnasium_agent') {
    return `environment ${env.name} is turn-based (gymnasium): it answers each model turn itself, which a harness's own loop cannot hand it; play it with gymnasium_agent`;
  }
  if (env.agent === 'non_executing_agent') {
    return `environment ${env.name} grades the model's calls to the task's own tools without running them (non_executing_agent), and a harness offers the model only its own tools; play it with non_executing_simple_agent`;
  }
  const tools = Object.keys(env.tools);
  if (tools.length > 0 && !harness?.playsEnvironmentTools) {
    return `environment ${env.name} is played with its tools (${tools.join(', ')}), which a harness cannot call; play it with simple_agent`;
  }
  return undefined;
}

/** What a harness works on for one task; `sandboxed` is set when the sandbox, not verify on the response, grades it. */
export interface HarnessWork {
  workdir: string;
  /** Files by path relative to `workdir`. */
  files: Record<string, string>;
  /** Empty writable folders outside the workdir the task's scripts need (SandboxedTasks.scratch). */
  scratch?: readonly string[];
  /** The task's instruction: the last user message. */
  instruction: string;
  /** The row's own system message (its input's first item, when that is a system message). */
  inputSystem?: string;
  sandboxed?: SandboxedTasks<any>;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
}

/**
 * NeMo Gym's reading of a row's input for a harness: a leading system message is the system text, the
 * last user message the instruction (a bare string input is the instruction).
 */
export function instructionOf(input: ResponseCreateParams['input']): { instruction: string; system?: string } {
  if (typeof input === 'string') return { instruction: input };
  const items = input as { role?: string; content?: unknown }[];
  const system = items[0]?.role === 'system' ? contentText(items[0].content) : undefined;
  const user = [...items.slice(system === undefined ? 0 : 1)].reverse().find((item) => item?.role === 'user');
  return { instruction: user ? contentText(user.content) : '', ...(system ? { system } : {}) };
}

export function harnessWork(
  env: AnyEnvironment,
  task: { responses_create_params: ResponseCreateParams },
  label: string,
  harness?: Pick<HarnessAdapter, 'name' | 'playsEnvironmentTools'>,
): HarnessWork {
  const refusal = harnessRefusal(env, harness);
  if (refusal) throw new GymError('BAD_INPUT', `${refusal}; ${harness?.name ?? 'no harness'} cannot play it`);
  const { instruction, system } = instructionOf(task.responses_create_params.input);
  const sandboxed = env.sandboxed;
  const work: HarnessWork = sandboxed
    ? {
        workdir: typeof sandboxed.workdir === 'function' ? sandboxed.workdir(task) : sandboxed.workdir,
        files: sandboxed.repository(task),
        instruction: sandboxed.prompt(task),
        sandboxed,
        ...(sandboxed.scratch?.length ? { scratch: sandboxed.scratch } : {}),
      }
    : { workdir: TEXT_TASK_WORKDIR, files: env.workspaceFiles?.(task) ?? {}, instruction };
  if (!work.instruction.trim()) throw new GymError('BAD_TASK', `${label}: responses_create_params.input has no user message to give the harness as its prompt`);
  return system ? { ...work, inputSystem: system } : work;
}

/**
 * The prompt and system text a harness is started with, by NeMo Gym's rule: the system text is the agent's
 * `system_prompt` then the row's system message, joined by a blank line; a harness that takes system text
 * on its command line gets it there, any other gets it before the instruction, separated by a blank line.
 */
export function harnessPrompt(
  work: Pick<HarnessWork, 'instruction' | 'inputSystem'>,
  agentSystem: string | undefined,
  harness: Pick<HarnessAdapter, 'takesSystemPrompt'>,
): { prompt: string; systemPrompt?: string } {
  const parts = [agentSystem, work.inputSystem].filter((p): p is string => !!p);
  if (parts.length === 0) return { prompt: work.instruction };
  const system = parts.join('\n\n');
  return harness.takesSystemPrompt ? { prompt: work.instruction, systemPrompt: system } : { prompt: `${system}\n\n${work.instruction}` };
}
