// The mock policy's player for spartqa: a line of reasoning and a "Final answer:" line with the gold
// label when correct, another of the four candidates otherwise.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { candidateLabels, labelKey } from './answer';
import { goldAndOptions, type SpartqaTask } from '.';

export const spartqaOracle: Oracle<SpartqaTask> = (task, _history, { correct, rng }) => {
  const { gold, options } = goldAndOptions(task);
  const wrong = candidateLabels(options).filter((label) => labelKey(label) !== labelKey(gold));
  const answer = correct || !wrong.length ? gold : rng.pick(wrong);
  return [assistantMessage(`I placed each object relative to the others, block by block.\nFinal answer: ${answer}`)];
};
