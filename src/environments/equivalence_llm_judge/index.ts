// NeMo Gym's equivalence_llm_judge: an LLM judge decides whether the model's answer is equivalent to
// the gold answer, with optional swap (positional-bias) and full-generation rescue passes.
import { assistantMessage } from '../example_single_tool_call';
import type { Environment } from '../types';
import { CLASS_DEFAULTS, EquivalenceJudgeConfig } from './config';
import { lastAssistantAnswer } from './extract';
import { EquivalenceTask } from './task';
import { expectedAnswer, verifyEquivalence } from './verify';

export { EquivalenceJudgeConfig, CLASS_DEFAULTS } from './config';

/** Ways a model is commonly asked to mark its final answer; the oracle uses one the task's regex reads. */
const ANSWER_WRAPPERS = [
  (a: string) => `((${a}))`,
  (a: string) => `<final_answer>${a}</final_answer>`,
  (a: string) => `\\boxed{${a}}`,
  (a: string) => `**${a}**`,
  (a: string) => `Answer: ${a}`,
];

export function createEquivalenceLlmJudge(overrides: Partial<EquivalenceJudgeConfig> = {}): Environment<EquivalenceTask, null> {
  const config = EquivalenceJudgeConfig.parse(overrides);
  return {
    name: 'equivalence_llm_judge',
    description: 'An LLM judge compares the final answer with the gold answer; reward 1.0 when equivalent.',
    taskSchema: EquivalenceTask,
    reverifyMode: 'stateless',
    configurable: { schema: EquivalenceJudgeConfig, create: createEquivalenceLlmJudge },
    requiresJudge: true,
    seedSession: () => null,
    tools: {},
    verify: (task, response, ctx) => verifyEquivalence(config, task, response, ctx),
    oracle(task, _history, { correct, rng }) {
      const expected = expectedAnswer(task);
      if (!correct) return [assistantMessage(rng.pick(['I do not know.', 'The answer cannot be determined.', 'None of the above.']))];
      const regex = (config.use_per_record_regex && task.template_metadata?.output_regex) || config.response_extract_regex;
      const texts = ANSWER_WRAPPERS.map((wrap) => `Final answer: ${wrap(expected)}`);
      const readable = texts.find((text) => lastAssistantAnswer([assistantMessage(text)], regex, '') === expected);
      return [assistantMessage(readable ?? expected)];
    },
  };
}

/** With NeMo Gym's shipped configs/equivalence_llm_judge.yaml settings. */
export const equivalenceLlmJudge = createEquivalenceLlmJudge();

/** The settings NeMo Gym's OpenQA rollouts were recorded with: class defaults plus the swap check. */
export const OPENQA_CONFIG: Partial<EquivalenceJudgeConfig> = { ...CLASS_DEFAULTS, check_twice_swap: true };
