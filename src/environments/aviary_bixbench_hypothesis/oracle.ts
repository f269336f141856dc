// The mock policy's player for aviary_bixbench_hypothesis: list the workspace, run the stand-in problem's
// `oracle_code` as a cell, then submit its `oracle_answer` (or the opposite conclusion when it should be
// wrong), then a closing message. Problems without them get the accepted/rejected verdict alone.
import type { ConversationItem } from '../../schemas/responses';
import { itemText } from '../../gateway/backends/mock/inputs';
import { assistantMessage } from '../example_single_tool_call';
import { functionCall } from '../aviary_gsm8k/oracle';
import { readProblems } from '../notebook/problems';
import type { Oracle } from '../oracle';
import { taskMessage } from './episode';
import { HypothesisProblem } from './problems';
import type { HypothesisTask } from '.';

/** The problem whose task message the conversation has (rows hold only task_idx, so the mock's match cannot tell them apart). */
function problemOf(task: HypothesisTask, history: readonly ConversationItem[], settings: Record<string, unknown>): HypothesisProblem {
  const texts = new Set(history.filter((item) => (item as { role?: string }).role === 'user').map(itemText));
  const file = typeof settings.problem_jsonl === 'string' ? settings.problem_jsonl : undefined;
  const problems = file ? readProblems(file, HypothesisProblem) : [];
  return problems.find((p) => texts.has(taskMessage(p.hypothesis, p.protocol))) ?? task.hypothesis.problem;
}

export const aviaryBixbenchHypothesisOracle: Oracle<HypothesisTask> = (task, history, { correct, settings }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const problem = problemOf(task, history, settings ?? {});
  const code = typeof problem.oracle_code === 'string' ? problem.oracle_code : undefined;
  const verdict = problem.answer === correct ? 'The hypothesis is supported.' : 'The hypothesis is rejected.';
  const answer = correct && typeof problem.oracle_answer === 'string' ? problem.oracle_answer : verdict;
  const plan = code ? ['list', 'run', 'submit'] : ['list', 'submit'];
  const move = plan[calls];
  if (move === 'list') return [functionCall('list_dir', {}, 'call_list')];
  if (move === 'run') return [functionCall('run_cell', { code }, 'call_run')];
  if (move === 'submit') return [functionCall('submit_answer', { answer }, 'call_submit')];
  return [assistantMessage('I have submitted my answer.')];
};
