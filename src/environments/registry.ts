// Environments by name. Adding one means adding its folder and one line here.
import { GymError } from '../errors';
import type { AnyEnvironment } from './types';
import { createRemoteEnvironment } from './remote';
import { exampleSingleToolCall } from './example_single_tool_call';
import { blackjack } from './blackjack';
import { citationIf } from './citation_if';
import { codeGen } from './code_gen';
import { equivalenceLlmJudge } from './equivalence_llm_judge';
import { exampleMultiStep } from './example_multi_step';
import { exampleMultiTurnGymnasium } from './example_multi_turn_gymnasium';
import { exampleSessionStateMgmt } from './example_session_state_mgmt';
import { exampleToolCallMultireward } from './example_tool_call_multireward';
import { guiCoordinate } from './gui_coordinate';
import { instructionFollowing } from './instruction_following';
import { mathWithJudge } from './math_with_judge';
import { mcqa } from './mcqa';
import { reasoningGym } from './reasoning_gym';
import { socialBias } from './social_bias';
import {
  parallelToolCallsSingleStepToolUseWithArgumentComparison,
  singleStepToolUseWithArgumentComparison,
} from './single_step_tool_use_with_argument_comparison';
import { stringMatch } from './string_match';
import { sweRepair } from './swe_repair';
import { structuredOutputs } from './structured_outputs';
import { workplaceAssistant } from './workplace_assistant';

const ENVIRONMENTS: readonly AnyEnvironment[] = [
  mcqa,
  mathWithJudge,
  instructionFollowing,
  structuredOutputs,
  citationIf,
  equivalenceLlmJudge,
  reasoningGym,
  socialBias,
  stringMatch,
  guiCoordinate,
  codeGen,
  workplaceAssistant,
  exampleMultiTurnGymnasium,
  blackjack,
  exampleSingleToolCall,
  exampleMultiStep,
  exampleSessionStateMgmt,
  exampleToolCallMultireward,
  singleStepToolUseWithArgumentComparison,
  parallelToolCallsSingleStepToolUseWithArgumentComparison,
  sweRepair,
];

const byName = new Map<string, AnyEnvironment>(ENVIRONMENTS.map((env) => [env.name, env]));

export function environmentNames(): string[] {
  return ENVIRONMENTS.map((env) => env.name).sort();
}

const REMOTE_PREFIX = 'remote+';

/**
 * The name of a remote environment (a NeMo Gym resources server) carries its address and tool names,
 * so it travels through manifests, workflows and activities like any other environment name.
 */
export function remoteEnvironmentName(baseUrl: string, tools: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GymError('BAD_FLAG', `--remote-url: "${baseUrl}" is not a URL`);
  }
  if (tools.length) url.searchParams.set('tools', tools.join(','));
  return `${REMOTE_PREFIX}${url.href}`;
}

function remoteEnvironment(name: string): AnyEnvironment {
  const url = new URL(name.slice(REMOTE_PREFIX.length));
  const tools = url.searchParams.get('tools')?.split(',').filter(Boolean) ?? [];
  url.search = '';
  const env = createRemoteEnvironment({ name, baseUrl: url.href, tools });
  byName.set(name, env);
  return env;
}

/**
 * The name of an environment with settings: `name?key=value&…`, values as JSON. Like a remote name,
 * it carries the settings through manifests, workflows and activities, and into the run's identity.
 */
export function configuredEnvironmentName(name: string, options: Record<string, unknown>): string {
  const keys = Object.keys(options).sort();
  if (!keys.length) return name;
  return `${name}?${keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(options[k]))}`).join('&')}`;
}

/** The inverse of configuredEnvironmentName: the base name and the settings (none for a plain name). */
export function parseConfiguredName(name: string): { base: string; options: Record<string, unknown> } {
  const at = name.indexOf('?');
  if (at < 0 || name.startsWith(REMOTE_PREFIX)) return { base: name, options: {} };
  const options: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(name.slice(at + 1))) {
    try {
      options[key] = JSON.parse(value);
    } catch {
      options[key] = value;
    }
  }
  return { base: name.slice(0, at), options };
}

function configuredEnvironment(name: string): AnyEnvironment {
  const { base, options } = parseConfiguredName(name);
  const env = getEnvironment(base);
  if (!env.configurable) throw new GymError('BAD_FLAG', `environment "${base}" has no settings`);
  // Strict: a misspelt setting must be an error, not silently ignored.
  const parsed = env.configurable.schema.strict().safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_FLAG', `environment "${base}" setting ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
  }
  const configured = { ...env.configurable.create(parsed.data), name };
  byName.set(name, configured);
  return configured;
}

export function getEnvironment(name: string): AnyEnvironment {
  if (name.startsWith(REMOTE_PREFIX) && !byName.has(name)) return remoteEnvironment(name);
  if (name.includes('?') && !byName.has(name)) return configuredEnvironment(name);
  const env = byName.get(name);
  if (!env) {
    throw new GymError('NOT_FOUND', `unknown environment "${name}"; known: ${environmentNames().join(', ')}`);
  }
  return env;
}
