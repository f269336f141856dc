// The mock policy's player for aviary_bixbench: list the workspace, run the problem's stand-in solution
// code (the stand-in problems carry `oracle_code`) as one cell, then submit what the kernel printed (with
// a wrong qualifier when it should be wrong), then a closing message. Without oracle_code it submits the ideal.
import type { ConversationItem } from '../../schemas/responses';
import { itemText } from '../../gateway/backends/mock/inputs';
import { assistantMessage } from '../example_single_tool_call';
import { functionCall } from '../aviary_gsm8k/oracle';
import { readProblems } from '../notebook/problems';
import type { Oracle } from '../oracle';
import { taskMessage } from './episode';
import { BixBenchProblem, problemSource } from './problems';
import type { BixBenchTask } from '.';

/** The problem whose task message opens the conversation (rows hold only task_idx, so the mock's task match cannot tell them apart). */
function problemOf(task: BixBenchTask, history: readonly ConversationItem[], settings: Record<string, unknown>): BixBenchProblem {
  const opening = history.find((item) => (item as { role?: string }).role === 'user');
  const text = opening ? itemText(opening) : '';
  const problems = readProblems(problemSource(settings as { capsule_dir?: string; problems?: string }).problems, BixBenchProblem);
  return problems.find((p) => taskMessage(p.question) === text) ?? task.bixbench.problem;
}

/** What the last notebook run printed: the text of the last output block of the notebook view. */
function printed(history: readonly ConversationItem[]): string {
  const last = history.filter((i) => i.type === 'function_call_output').at(-1) as { output?: unknown } | undefined;
  const text = typeof last?.output === 'string' ? (JSON.parse(last.output) as string) : '';
  const blocks = [...text.matchAll(/### Output \d+:\n```\n([\s\S]*?)\n```/g)];
  return blocks.at(-1)?.[1]?.trim() ?? '';
}

export const aviaryBixbenchOracle: Oracle<BixBenchTask> = (task, history, { correct, settings }) => {
  const calls = history.filter((item) => item.type === 'function_call').length;
  const problem = problemOf(task, history, settings ?? {});
  const code = typeof problem.oracle_code === 'string' ? problem.oracle_code : undefined;
  const plan = code ? ['list', 'edit', 'submit'] : ['list', 'submit'];
  const move = plan[calls];
  if (move === 'list') return [functionCall('list_workdir', {}, 'call_list')];
  if (move === 'edit') return [functionCall('edit_cell', { contents: code, idx: null }, 'call_edit')];
  if (move === 'submit') {
    const answer = code ? printed(history) : problem.ideal;
    return [functionCall('submit_solution', { solution: correct ? answer : `not ${answer}` }, 'call_submit')];
  }
  return [assistantMessage('I have submitted my solution.')];
};
