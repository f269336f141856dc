// The mock policy's player for string_match: the expected answer (or "unknown") written so that the
// row's extraction mode reads exactly it.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { ExtractionMode } from './extract';
import { DEFAULT_MODE, type StringMatchTask } from '.';

/** The text an answer takes so that `mode` extracts exactly `answer` from it. */
function formatAnswer(answer: string, mode: ExtractionMode): string {
  const preface = 'I worked through the question step by step.';
  switch (mode) {
    case 'boxed':
      return `${preface} The result is \\boxed{${answer}}`;
    case 'final_answer':
      return `${preface}\nFinal answer: ${answer}`;
    case 'last_line':
      return `${preface}\n${answer}`;
    case 'full_response':
      return answer;
  }
}

export const stringMatchOracle: Oracle<StringMatchTask> = (task, _history, { correct }) => {
  const answer = correct ? task.expected_answer : task.expected_answer.trim().toLowerCase() === 'unknown' ? 'n/a' : 'unknown';
  return [assistantMessage(formatAnswer(answer, task.extraction_mode ?? DEFAULT_MODE))];
};
