// The mock policy's player for terminal_bench_2_1: through the harness's own shell tool it runs the
// task's reference solution (solution/solve.sh, NeMo Gym's golden patch), then finishes.
import type { ConversationItem, FunctionCallItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { call, finishArguments, FINISH_TOOLS, shellTool, toolSchemas } from '../swe_repair/oracle';
import type { TerminalBench21Task } from '.';
import { readTaskFolder } from './task-folder';

/** One shell line: the script written to the sandbox's /tmp (base64, so nothing needs quoting), then run by bash. */
function solveCommand(script: string): string {
  return `printf '%s' '${Buffer.from(script).toString('base64')}' | base64 -d > /tmp/gymflow-solve.sh && bash /tmp/gymflow-solve.sh`;
}

/**
 * Stateless: the history says whether the solution ran. Played wrong (accuracy < 1), or for a task
 * without a solution or a harness without a shell, it finishes without touching anything, so the tests fail.
 */
export const terminalBench21Oracle: Oracle<TerminalBench21Task> = (task, history, { correct, tools = [] }) => {
  const schemas = toolSchemas(tools);
  const made = history.filter((i): i is FunctionCallItem & ConversationItem => i.type === 'function_call');
  const done = (name: string) => made.some((c) => c.name === name);
  const shell = shellTool(schemas);
  const solution = readTaskFolder(task.task_folder).solution;
  if (correct && shell && solution !== undefined && !done(shell.name)) {
    const line = solveCommand(solution);
    return [call(shell.name, { [shell.key]: shell.list ? [line] : line }, made.length)];
  }
  const finish = schemas.find((t) => FINISH_TOOLS.includes(t.name));
  if (finish && !done(finish.name)) return [call(finish.name, finishArguments(finish), made.length)];
  return [assistantMessage('done')];
};
