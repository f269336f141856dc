// The mock policy's player for deepswe: through the harness's own shell tool it applies the task's reference
// solution (solution/solution.patch) and commits it, since DeepSWE grades committed work only, then finishes.
import { shellLineOracle, writeFileLine } from '../swe_repair/oracle';
import { deepsweStore, type DeepsweSettings } from '.';
import { taskOf, type DeepsweTask } from './task-data';

export const deepsweOracle = shellLineOracle<DeepsweTask>((row, { settings }) => {
  const patch = taskOf(row, deepsweStore((settings ?? {}) as DeepsweSettings)()).solutionPatch.toString('utf8');
  return `${writeFileLine('/tmp/gymflow-fix.patch', patch)} && git apply --binary /tmp/gymflow-fix.patch && git add -A && git commit -q -m 'Apply the fix'`;
});
