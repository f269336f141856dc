// The mock policy's oracles by environment: how the mock plays each built-in environment. Only the
// mock backend imports this, so oracles stay out of the environments the rest of the product runs.
import { parseConfiguredName } from '../../../environments/names';
import type { Oracle } from '../../../environments/oracle';
import { agentifOracle } from '../../../environments/agentif/oracle';
import { aviaryBixbenchOracle } from '../../../environments/aviary_bixbench/oracle';
import { aviaryBixbenchHypothesisOracle } from '../../../environments/aviary_bixbench_hypothesis/oracle';
import { aviaryGsm8kOracle } from '../../../environments/aviary_gsm8k/oracle';
import { aviaryHotpotqaOracle } from '../../../environments/aviary_hotpotqa/oracle';
import { blackjackOracle } from '../../../environments/blackjack/oracle';
import { citationIfOracle } from '../../../environments/citation_if/oracle';
import { codeGenOracle } from '../../../environments/code_gen/oracle';
import { conversationalToolUseOracle } from '../../../environments/conversational_tool_use_simulation/oracle';
import { equivalenceLlmJudgeOracle } from '../../../environments/equivalence_llm_judge/oracle';
import { exampleMultiStepOracle } from '../../../environments/example_multi_step/oracle';
import { exampleMultiTurnGymnasiumOracle } from '../../../environments/example_multi_turn_gymnasium/oracle';
import { exampleSessionStateMgmtOracle } from '../../../environments/example_session_state_mgmt/oracle';
import { exampleSingleToolCallOracle } from '../../../environments/example_single_tool_call/oracle';
import { exampleToolCallMultirewardOracle } from '../../../environments/example_tool_call_multireward/oracle';
import { financeAgentV2Oracle } from '../../../environments/finance_agent_v2/oracle';
import { financeSecSearchOracle } from '../../../environments/finance_sec_search/oracle';
import { imageToolsOracle } from '../../../environments/image_tools/oracle';
import { imageToolsAgentOracle } from '../../../environments/image_tools_agent/oracle';
import { guiCoordinateOracle } from '../../../environments/gui_coordinate/oracle';
import { instructionFollowingOracle } from '../../../environments/instruction_following/oracle';
import { litmusAgentOracle } from '../../../environments/litmus_agent/oracle';
import { longMemEvalOracle } from '../../../environments/longmemeval/oracle';
import { mathWithJudgeOracle } from '../../../environments/math_with_judge/oracle';
import { mcqaOracle } from '../../../environments/mcqa/oracle';
import { osworldOracle } from '../../../environments/osworld/oracle';
import { openAirCongestionOracle } from '../../../environments/openair_congestion/oracle';
import { pinchbenchOracle } from '../../../environments/pinchbench/oracle';
import { reasoningGymOracle } from '../../../environments/reasoning_gym/oracle';
import { ruler2Oracle } from '../../../environments/ruler2/oracle';
import { argumentComparisonOracle } from '../../../environments/single_step_tool_use_with_argument_comparison/oracle';
import { socialBiasOracle } from '../../../environments/social_bias/oracle';
import { spartqaOracle } from '../../../environments/spartqa/oracle';
import { stringMatchOracle } from '../../../environments/string_match/oracle';
import { structuredOutputsOracle } from '../../../environments/structured_outputs/oracle';
import { sweRepairOracle } from '../../../environments/swe_repair/oracle';
import { deepsweOracle } from '../../../environments/deepswe/oracle';
import { swebenchOracle } from '../../../environments/swebench/oracle';
import { terminalBench21Oracle } from '../../../environments/terminal_bench_2_1/oracle';
import { vcqaOracle } from '../../../environments/vcqa/oracle';
import { wmtTranslationOracle } from '../../../environments/wmt_translation/oracle';
import { workplaceAssistantOracle } from '../../../environments/workplace_assistant/oracle';

// Keyed by base environment name; each oracle is typed by its own task, checked by taskSchema first.
const ORACLES: Readonly<Record<string, Oracle<any>>> = {
  agentif: agentifOracle,
  aviary_bixbench: aviaryBixbenchOracle,
  aviary_bixbench_hypothesis: aviaryBixbenchHypothesisOracle,
  aviary_gsm8k: aviaryGsm8kOracle,
  aviary_hotpotqa: aviaryHotpotqaOracle,
  blackjack: blackjackOracle,
  citation_if: citationIfOracle,
  code_gen: codeGenOracle,
  conversational_tool_use_simulation: conversationalToolUseOracle,
  equivalence_llm_judge: equivalenceLlmJudgeOracle,
  example_multi_step: exampleMultiStepOracle,
  example_multi_turn_gymnasium: exampleMultiTurnGymnasiumOracle,
  example_session_state_mgmt: exampleSessionStateMgmtOracle,
  example_single_tool_call: exampleSingleToolCallOracle,
  example_tool_call_multireward: exampleToolCallMultirewardOracle,
  finance_agent_v2: financeAgentV2Oracle,
  finance_sec_search: financeSecSearchOracle,
  image_tools: imageToolsOracle,
  image_tools_agent: imageToolsAgentOracle((name) => (Object.hasOwn(ORACLES, name) ? ORACLES[name] : undefined)),
  gui_coordinate: guiCoordinateOracle,
  osworld: osworldOracle,
  instruction_following: instructionFollowingOracle,
  litmus_agent: litmusAgentOracle,
  longmemeval: longMemEvalOracle,
  math_with_judge: mathWithJudgeOracle,
  mcqa: mcqaOracle,
  openair_congestion: openAirCongestionOracle,
  pinchbench: pinchbenchOracle,
  reasoning_gym: reasoningGymOracle,
  ruler2: ruler2Oracle,
  single_step_tool_use_with_argument_comparison: argumentComparisonOracle,
  parallel_tool_calls_single_step_tool_use_with_argument_comparison: argumentComparisonOracle,
  social_bias: socialBiasOracle,
  spartqa: spartqaOracle,
  string_match: stringMatchOracle,
  structured_outputs: structuredOutputsOracle,
  deepswe: deepsweOracle,
  swe_repair: sweRepairOracle,
  swebench: swebenchOracle,
  terminal_bench_2_1: terminalBench21Oracle,
  vcqa: vcqaOracle,
  wmt_translation: wmtTranslationOracle,
  workplace_assistant: workplaceAssistantOracle,
};

export interface EnvironmentOracle {
  play: Oracle<any>;
  /** The settings the environment name carries, which some oracles need to answer readably. */
  settings: Record<string, unknown>;
}

/**
 * The oracle for an environment name: a configured name (`base?key=value`) plays its base
 * environment's oracle with those settings; a remote or unknown environment has none.
 */
export function oracleFor(envName: string): EnvironmentOracle | undefined {
  const { base, options } = parseConfiguredName(envName);
  const play = Object.hasOwn(ORACLES, base) ? ORACLES[base] : undefined;
  return play ? { play, settings: options } : undefined;
}
