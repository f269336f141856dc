// The mock policy's player for swebench: through the harness's own shell tool it applies the row's reference
// fix (SWE-bench's gold `patch`) to the working tree, where NeMo Gym's `git diff` finds it, then finishes.
import { shellLineOracle, writeFileLine } from '../swe_repair/oracle';
import type { SwebenchTask } from './task-data';

export const swebenchOracle = shellLineOracle<SwebenchTask>((task) => `${writeFileLine('/tmp/gymflow-fix.patch', task.patch)} && git apply /tmp/gymflow-fix.patch`);
