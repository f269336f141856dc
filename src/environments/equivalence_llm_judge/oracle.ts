// The mock policy's player for equivalence_llm_judge: the gold answer marked so that the run's
// extraction regex reads it back, or a non-answer.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { EquivalenceJudgeConfig } from './config';
import { lastAssistantAnswer } from './extract';
import type { EquivalenceTask } from './task';
import { expectedAnswer } from './verify';

/** Ways a model is commonly asked to mark its final answer; the oracle uses one the task's regex reads. */
const ANSWER_WRAPPERS = [(a: string) => `((${a}))`, (a: string) => `<final_answer>${a}</final_answer>`, (a: string) => `\\boxed{${a}}`, (a: string) => `**${a}**`, (a: string) => `Answer: ${a}`];

export const equivalenceLlmJudgeOracle: Oracle<EquivalenceTask> = (task, _history, { correct, rng, settings }) => {
  const expected = expectedAnswer(task);
  if (!correct) return [assistantMessage(rng.pick(['I do not know.', 'The answer cannot be determined.', 'None of the above.']))];
  // The regex the run's verify will read the answer with: the same settings, the same defaults.
  const config = EquivalenceJudgeConfig.parse(settings ?? {});
  const regex = (config.use_per_record_regex && task.template_metadata?.output_regex) || config.response_extract_regex;
  const texts = ANSWER_WRAPPERS.map((wrap) => `Final answer: ${wrap(expected)}`);
  const readable = texts.find((text) => lastAssistantAnswer([assistantMessage(text)], regex, '') === expected);
  return [assistantMessage(readable ?? expected)];
};
