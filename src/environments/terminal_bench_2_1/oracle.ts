// The mock policy's player for terminal_bench_2_1: through the harness's own shell tool it runs the
// task's reference solution (solution/solve.sh, NeMo Gym's golden patch), then finishes.
import { shellLineOracle, writeFileLine } from '../swe_repair/oracle';
import type { TerminalBench21Task } from '.';
import { readTaskFolder } from './task-folder';

/** One shell line: the script written to the sandbox's /tmp, then run by bash. */
function solveCommand(script: string): string {
  return `${writeFileLine('/tmp/gymflow-solve.sh', script)} && bash /tmp/gymflow-solve.sh`;
}

/** Played wrong (accuracy < 1), or for a task without a solution, it finishes without touching anything, so the tests fail. */
export const terminalBench21Oracle = shellLineOracle<TerminalBench21Task>((task) => {
  const solution = readTaskFolder(task.task_folder).solution;
  return solution === undefined ? undefined : solveCommand(solution);
});
