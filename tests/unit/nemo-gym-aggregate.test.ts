// NeMo Gym's aggregate metrics rebuilt from rollout rows, checked against what NeMo Gym itself computed: the
// aggregate files its wheel ships beside recorded rollouts, and its 0.7.0 code run on a rollouts file with
// repeats, answers and a masked sample (scripts/nemo-gym-aggregate.py wrote the expected file).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregateRollouts, aggregateVerifyResponses, isPrimaryMetric } from '../../src/metrics/nemo-gym-aggregate';
import { expectCovers } from '../helpers/covers';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];

describe("NeMo Gym's recorded aggregate metrics", () => {
  // Recorded by an earlier NeMo Gym: 0.7.0 adds keys (num_repeats, across-repeat summaries), and these checks
  // ask only for the recorded ones. The headline set is NeMo Gym's default (every mean/…) plus pass@k.
  for (const server of ['blackjack', 'example_multi_turn_gymnasium']) {
    it(`${server}: agent, key and per-task metrics as NeMo Gym recorded them`, () => {
      const [recorded] = json(path.join(FIXTURES, server, 'example_rollouts_aggregate_metrics.json')) as { agent_metrics: object; key_metrics: object; group_level_metrics: object[] }[];
      const ours = aggregateVerifyResponses(jsonl(path.join(FIXTURES, server, 'example_rollouts.jsonl')));
      expectCovers(ours.agent_metrics, recorded!.agent_metrics);
      expectCovers(ours.key_metrics, recorded!.key_metrics);
      expectCovers(ours.group_level_metrics, recorded!.group_level_metrics);
    });
  }
});

describe("NeMo Gym 0.7.0's aggregation of a rollouts file", () => {
  const expected = json(path.join(FIXTURES, 'aggregate', 'expected_aggregate_metrics.json')) as { agent_ref: { name: string } }[];
  const ours = aggregateRollouts(jsonl(path.join(FIXTURES, 'aggregate', 'rollouts.jsonl')));

  it('has one entry per agent, named by agent_ref', () => {
    expect(ours.map((e) => e.agent_ref.name).sort()).toEqual(expected.map((e) => e.agent_ref.name).sort());
  });

  for (const entry of expected) {
    it(`${entry.agent_ref.name}: every metric NeMo Gym computed, and no other`, () => {
      const mine = ours.find((e) => e.agent_ref.name === entry.agent_ref.name)!;
      expectCovers(mine, entry);
      expect(Object.keys(mine.agent_metrics).sort()).toEqual(Object.keys((entry as unknown as { agent_metrics: object }).agent_metrics).sort());
      expect(Object.keys(mine.key_metrics).sort()).toEqual(Object.keys((entry as unknown as { key_metrics: object }).key_metrics).sort());
    });
  }

  it('leaves a masked sample out of the quality metrics and counts it as coverage', () => {
    const judge = ours.find((e) => e.agent_ref.name === 'judge_agent')!;
    expect(judge.agent_metrics['coverage/masked_rollouts']).toBe(1);
    expect(judge.agent_metrics.num_repeats).toBe(3);
    expect(judge.agent_metrics['mean/mask_sample']).toBeUndefined();
  });
});

describe('edges', () => {
  it('every rollout masked: only coverage, no invented zero', () => {
    const out = aggregateVerifyResponses([{ reward: 0, mask_sample: true, _ng_task_index: 0, _ng_rollout_index: 0 }]);
    expect(out.agent_metrics).toEqual({ 'coverage/measured_rollouts': 0, 'coverage/masked_rollouts': 1, 'coverage/measured_tasks': 0, 'coverage/fully_masked_tasks': 1 });
    expect(out.group_level_metrics).toEqual([]);
  });

  it('rows that name no agent are one entry named "agent", as NeMo Gym names its synthetic rows', () => {
    expect(aggregateRollouts([{ reward: 1, _ng_task_index: 0, _ng_rollout_index: 0 }]).map((e) => e.agent_ref.name)).toEqual(['agent']);
  });

  it("an environment server stamp groups before the agent, and two servers of one agent keep the servers' names", () => {
    const rows = ['a', 'b'].map((s) => ({ reward: 1, agent_ref: { name: 'x' }, _ng_environment_server: s, _ng_task_index: 0, _ng_rollout_index: 0 }));
    expect(aggregateRollouts(rows).map((e) => [e.agent_ref.name, e._ng_environment_server])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ]);
  });

  it("primary metrics are NeMo Gym's point estimates", () => {
    expect(['mean/reward', 'pass@1/accuracy'].every(isPrimaryMetric)).toBe(true);
    expect(['median/reward', 'sample_count', '_ng_rollout_index', 'mean_across_repeats/mean/reward', 'pass@1[avg-of-2]/accuracy/std_dev_across_runs'].some(isPrimaryMetric)).toBe(false);
  });
});
