// NeMo Gym's aggregate of a task set with many repeats, computed by its 0.7.0 code (scripts/nemo-gym-aggregate.py
// in the cached NeMo Gym venv) and by Gymflow from the same rows: pass@k, pass@1[avg-of-k] and majority@k at
// every k agree, and so do the spreads of pass@1 across runs. Past ~1,000 repeats the binomials of pass@k overflow a double, and each k used to be
// computed from scratch; a campaign's 20,000 repeats took minutes and gave NaN.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NEMO_GYM_VENV_PYTHON } from '../../src/environments/remote/launch';
import { aggregateRollouts } from '../../src/metrics/nemo-gym-aggregate';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { tempDir } from '../helpers/run';
import { interopTitle, nemoGymVenv } from './nemo-gym-venv';

const REPEATS = 1500;

/** Two tasks of 0/1 rewards with extracted answers (one answer-less sample in ten), drawn from a fixed seed. */
function rows(): Record<string, unknown>[] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return [0, 1].flatMap((task) =>
    Array.from({ length: REPEATS }, (_, i) => {
      const right = next() < (task ? 0.3 : 0.8);
      const answer = next() < 0.1 ? undefined : right ? 'B' : next() < 0.5 ? 'A' : 'C';
      return { reward: right ? 1 : 0, ...(answer === undefined ? {} : { extracted_answer: answer }), _ng_task_index: task, _ng_rollout_index: i };
    }),
  );
}

describe.skipIf(!nemoGymVenv)(interopTitle(`NeMo Gym's aggregate of ${REPEATS} repeats per task`), () => {
  it('agrees at every k, with no NaN and no infinity', async () => {
    const data = rows();
    const file = path.join(await tempDir('gymflow-many-repeats-'), 'rollouts.jsonl');
    writeFileSync(file, data.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { stdout } = await promisify(execFile)(NEMO_GYM_VENV_PYTHON, [path.join(PACKAGE_ROOT, 'scripts/nemo-gym-aggregate.py'), file], { maxBuffer: 256 * 2 ** 20 });
    const [theirs] = JSON.parse(stdout) as { agent_metrics: Record<string, unknown> }[];
    const [ours] = aggregateRollouts(data);
    let compared = 0;
    for (const [key, expected] of Object.entries(theirs!.agent_metrics)) {
      if (!/^(pass@\d+|pass@1\[avg-of-\d+\]|majority@\d+)\/(accuracy|no_answer)(\/std_(dev|err)_across_runs)?$/.test(key)) continue;
      const actual = ours!.agent_metrics[key];
      expect(Number.isFinite(actual), key).toBe(true);
      expect(actual, key).toBeCloseTo(expected as number, 8);
      compared++;
    }
    // Every k for each of the three metrics over both score names, and the two spreads from k = 2.
    expect(compared).toBe(REPEATS * 3 * 2 + (REPEATS - 1) * 2 * 2);
  }, 300_000);
});
