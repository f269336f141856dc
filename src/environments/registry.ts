// Environments by name. Adding one means adding its folder and one line here.
import { GymError } from '../errors';
import type { AnyEnvironment } from './types';
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

const byName = new Map(ENVIRONMENTS.map((env) => [env.name, env]));

export function environmentNames(): string[] {
  return [...byName.keys()].sort();
}

export function getEnvironment(name: string): AnyEnvironment {
  const env = byName.get(name);
  if (!env) {
    throw new GymError('NOT_FOUND', `unknown environment "${name}"; known: ${environmentNames().join(', ')}`);
  }
  return env;
}
