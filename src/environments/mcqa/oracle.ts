// The mock policy's player for mcqa: the gold letter, or another allowed one, written so that every
// grading mode can read it.
import { pyStrip } from '../../python/str';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { allowedLetters } from './grading';
import type { McqaTask } from '.';

export const mcqaOracle: Oracle<McqaTask> = (task, _history, { correct, rng }) => {
  const gold = pyStrip(task.expected_answer ?? '').toUpperCase();
  const letters = [...allowedLetters(task.options)];
  const pool = letters.length > 1 ? letters : ['A', 'B', 'C', 'D'];
  const wrong = pool.filter((l) => l !== gold);
  const letter = correct && gold !== '' ? gold : rng.pick(wrong);
  // Both a box and an "Answer:" line, so every grading mode (and box-based templates) can read it.
  const text = 'Let me weigh each option against the question and rule out the ones that do not fit.\n' + `Option ${letter} is the best fit.\n\n\\boxed{${letter}}\n\nAnswer: ${letter}`;
  return [assistantMessage(text)];
};
