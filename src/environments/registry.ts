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

export function getEnvironment(name: string): AnyEnvironment {
  if (name.startsWith(REMOTE_PREFIX) && !byName.has(name)) return remoteEnvironment(name);
  const env = byName.get(name);
  if (!env) {
    throw new GymError('NOT_FOUND', `unknown environment "${name}"; known: ${environmentNames().join(', ')}`);
  }
  return env;
}
