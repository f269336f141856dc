// Environments by name. Adding one means adding its folder and one line here.
import { GymError } from '../errors';
import type { AnyEnvironment } from './types';
import { envKey, type EnvRefInput } from './ref';
import { parseConfiguredName, parseRemoteName, REMOTE_PREFIX } from './names';
import { createRemoteEnvironment } from './remote';
import { exampleSingleToolCall } from './example_single_tool_call';
import { agentif } from './agentif';
import { aviaryBixbench } from './aviary_bixbench';
import { aviaryBixbenchHypothesis } from './aviary_bixbench_hypothesis';
import { aviaryGsm8k } from './aviary_gsm8k';
import { aviaryHotpotqa } from './aviary_hotpotqa';
import { blackjack } from './blackjack';
import { citationIf } from './citation_if';
import { codeGen } from './code_gen';
import { deepswe } from './deepswe';
import { conversationalToolUseSimulation } from './conversational_tool_use_simulation';
import { equivalenceLlmJudge } from './equivalence_llm_judge';
import { exampleMultiStep } from './example_multi_step';
import { exampleMultiTurnGymnasium } from './example_multi_turn_gymnasium';
import { exampleSessionStateMgmt } from './example_session_state_mgmt';
import { exampleToolCallMultireward } from './example_tool_call_multireward';
import { financeAgentV2 } from './finance_agent_v2';
import { financeSecSearch } from './finance_sec_search';
import { imageTools } from './image_tools';
import { createImageToolsAgent } from './image_tools_agent';
import { guiCoordinate } from './gui_coordinate';
import { osworld } from './osworld';
import { instructionFollowing } from './instruction_following';
import { litmusAgent } from './litmus_agent';
import { longMemEval } from './longmemeval';
import { mathWithJudge } from './math_with_judge';
import { mcqa } from './mcqa';
import { openAirCongestion } from './openair_congestion';
import { pinchbench } from './pinchbench';
import { reasoningGym } from './reasoning_gym';
import { ruler2 } from './ruler2';
import { socialBias } from './social_bias';
import { spartqa } from './spartqa';
import { parallelToolCallsSingleStepToolUseWithArgumentComparison, singleStepToolUseWithArgumentComparison } from './single_step_tool_use_with_argument_comparison';
import { stringMatch } from './string_match';
import { sweRepair } from './swe_repair';
import { swebench } from './swebench';
import { terminalBench21 } from './terminal_bench_2_1';
import { structuredOutputs } from './structured_outputs';
import { vcqa } from './vcqa';
import { wmtTranslation } from './wmt_translation';
import { workplaceAssistant } from './workplace_assistant';

const ENVIRONMENTS: readonly AnyEnvironment[] = [
  agentif,
  mcqa,
  mathWithJudge,
  litmusAgent,
  longMemEval,
  instructionFollowing,
  structuredOutputs,
  citationIf,
  equivalenceLlmJudge,
  reasoningGym,
  ruler2,
  socialBias,
  spartqa,
  stringMatch,
  guiCoordinate,
  osworld,
  codeGen,
  conversationalToolUseSimulation,
  workplaceAssistant,
  wmtTranslation,
  exampleMultiTurnGymnasium,
  blackjack,
  openAirCongestion,
  aviaryGsm8k,
  aviaryHotpotqa,
  aviaryBixbench,
  aviaryBixbenchHypothesis,
  financeAgentV2,
  financeSecSearch,
  imageTools,
  // Wraps a base environment, looked up here when a row is read.
  createImageToolsAgent((name) => getEnvironment(name)),
  exampleSingleToolCall,
  exampleMultiStep,
  exampleSessionStateMgmt,
  exampleToolCallMultireward,
  singleStepToolUseWithArgumentComparison,
  parallelToolCallsSingleStepToolUseWithArgumentComparison,
  sweRepair,
  swebench,
  deepswe,
  terminalBench21,
  vcqa,
  pinchbench,
];

const byName = new Map<string, AnyEnvironment>(ENVIRONMENTS.map((env) => [env.name, env]));

const NAMES = new Set(ENVIRONMENTS.map((env) => env.name));

export function environmentNames(): string[] {
  return [...NAMES].sort();
}

/** Whether the name is a registered environment's own (not a remote or configured one). */
export function isEnvironmentName(name: string): boolean {
  return NAMES.has(name);
}

function remoteEnvironment(name: string): AnyEnvironment {
  const env = createRemoteEnvironment({ name, ...parseRemoteName(name) });
  byName.set(name, env);
  return env;
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

/** The environment a reference names, with its settings applied (cached). */
export function resolveEnvironment(ref: EnvRefInput): AnyEnvironment {
  return getEnvironment(envKey(ref));
}
