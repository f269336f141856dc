// openair_congestion against NeMo Gym 0.7.0: the recorded scripted-relief episodes replay step by step to the
// recorded observations and bit-identical rewards, and random episodes played on NeMo Gym's own server
// (openair_congestion.cases.py) replay to its observations, rewards and done flags.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAirCongestion as env, openAirCongestionGym as gym, OpenAirTask, type OpenAirState } from '../../src/environments/openair_congestion';
import { openAirCongestionOracle } from '../../src/environments/openair_congestion/oracle';
import { pyFixed } from '../../src/environments/openair_congestion/render';
import { sentArguments, withWholeEpisode } from '../../src/environments/openair_congestion/recorded';
import { ResponseObject } from '../../src/schemas/responses';
import { startEpisode, advance, type Episode } from '../../src/environments/gymnasium';
import type { ConversationItem } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

interface RecordedStep {
  action: { name: string };
  observation: string;
  next_observation: string;
  reward: number;
  guardrail_accepted: boolean;
  rejection_reason: string | null;
  step_idx: number;
  terminated: boolean;
  truncated: boolean;
}
const rollouts = readJsonl(path.join(FIXTURES, 'openair_congestion', 'example_rollouts.jsonl')) as (Record<string, unknown> & {
  reward: number;
  trajectory: RecordedStep[];
})[];

const call = (name: string, args: string, id: string): ConversationItem => ({ type: 'function_call', call_id: id, name, arguments: args });

describe('openair_congestion conformance with NeMo Gym recorded rollouts', () => {
  rollouts.forEach((rollout, i) => {
    it(`rollout #${i} (seed ${String(rollout.seed)}, ${String(rollout.scenario_id)}) replays to reward ${rollout.reward}`, () => {
      const task = OpenAirTask.parse(rollout);
      const reset = gym.reset(task, seededRng(0));
      expect(reset.observation).toBe(rollout.trajectory[0]!.observation);
      let state: OpenAirState = reset.state;
      let total = 0;
      rollout.trajectory.forEach((recorded, n) => {
        const step = gym.step(task, state, [call(recorded.action.name, sentArguments(recorded), `call_${n}`)]);
        expect(step.observation).toBe(recorded.next_observation);
        expect(step.reward).toBe(recorded.reward);
        expect([step.terminated, step.truncated]).toEqual([recorded.terminated, recorded.truncated]);
        state = step.state;
        total += step.reward;
      });
      expect(total).toBe(rollout.reward);
    });

    it(`rollout #${i} rebuilt as a whole episode verifies to ${rollout.reward} without diverging`, () => {
      const task = OpenAirTask.parse(rollout);
      const response = ResponseObject.parse(withWholeEpisode(rollout).response);
      const result = settled(env.verify(task, response, { state: undefined as never }));
      expect(result.reward).toBe(rollout.reward);
      expect(result.failure_reason).toBeUndefined();
    });
  });
});

interface Case {
  task: Record<string, unknown>;
  first_observation: string;
  turns: ConversationItem[][];
  steps: { observation: string; reward: number; terminated: boolean; truncated: boolean }[];
}
const cases = readJsonl(path.join(import.meta.dirname, 'openair_congestion.cases.jsonl')) as unknown as Case[];

// The venv's Python 3.11 adds sum() left to right; Gymflow adds as the recordings' Python ≥ 3.12 does, so a
// reward (and the next observation's echo of it) may differ from these cases in the last bit.
const TOLERANCE = 1e-12;
const LAST_REWARD = /; last reward: (-?[0-9.e+-]+)(?=, REJECTED|\.\n)/;
function expectSameObservation(ours: string, theirs: string): void {
  const [a, b] = [LAST_REWARD.exec(ours), LAST_REWARD.exec(theirs)];
  expect(ours.replace(LAST_REWARD, '; last reward: R')).toBe(theirs.replace(LAST_REWARD, '; last reward: R'));
  expect(Boolean(a)).toBe(Boolean(b));
  if (a && b) expect(Math.abs(Number(a[1]) - Number(b[1]))).toBeLessThanOrEqual(TOLERANCE);
}

describe("openair_congestion against NeMo Gym's server on random episodes", () => {
  it('the cases exercise rejections, protocol violations, caps and admission', () => {
    const text = cases.flatMap((c) => c.steps.map((s) => s.observation)).join('\n');
    for (const marker of ['REJECTED (set_prb_cap', 'No tool call detected', 'Exactly one tool call', 'Invalid tool call', 'identical-action repeat', 'set_admission_policy(']) {
      expect(text).toContain(marker);
    }
  });

  cases.forEach((c, i) => {
    it(`episode ${i} (seed ${String(c.task.seed)}, ${c.turns.length} turns)`, () => {
      const task = OpenAirTask.parse(c.task);
      const reset = gym.reset(task, seededRng(0));
      expect(reset.observation).toBe(c.first_observation);
      let state = reset.state;
      c.turns.forEach((turn, n) => {
        const step = gym.step(task, state, turn);
        const recorded = c.steps[n]!;
        expectSameObservation(step.observation!, recorded.observation);
        expect(Math.abs(step.reward - recorded.reward)).toBeLessThanOrEqual(TOLERANCE);
        expect([step.terminated, step.truncated]).toEqual([recorded.terminated, recorded.truncated]);
        state = step.state;
      });
    });
  });
});

describe('openair_congestion episodes', () => {
  const task = OpenAirTask.parse(readJsonl(path.resolve(import.meta.dirname, '../../src/environments/openair_congestion/data/example.jsonl'))[0]);

  function play(correct: boolean): Episode<OpenAirState> & { output: ConversationItem[] } {
    let { episode, input } = startEpisode(gym, task);
    const history: ConversationItem[] = [...input];
    for (let turn = 0; turn < 20; turn++) {
      const items = openAirCongestionOracle(task, history, { correct, rng: seededRng(turn) });
      history.push(...items);
      const next = advance(gym, task, episode, items);
      episode = next.episode;
      history.push(...next.append);
      if (next.done) break;
    }
    return { ...episode, output: history };
  }

  it('runs the row budget (16 steps) and verify replays the same return from the response alone', () => {
    const episode = play(true);
    expect(episode.steps).toBe(16);
    expect(episode.terminated).toBe(true);
    expect(episode.state.rejections).toBe(0);
    // Gymflow's loop keeps the opening observation as the output's first item (this once read as a divergence).
    expect((episode.output[0] as { role?: string }).role).toBe('user');
    const result = settled(env.verify(task, { id: 'r', object: 'response', output: episode.output }, { state: undefined as never }));
    expect(result.failure_reason).toBeUndefined();
    expect(result.reward).toBe(episode.reward);
  });

  it('the careless oracle is refused by the guardrail every step and earns less', () => {
    const good = play(true);
    const careless = play(false);
    expect(careless.state.rejections).toBe(16);
    expect(careless.reward).toBeLessThan(good.reward);
  });

  it('verify replays a response to its return and names a refused call', () => {
    const output: ConversationItem[] = [call('set_prb_cap', '{"cell_id": 0, "target": "ue", "target_id": 9, "max_prb": 10}', 'c0')];
    const result = settled(env.verify({ ...task, max_steps: 1 }, { id: 'r', object: 'response', output }, { state: undefined as never }));
    expect(result.failure_reason).toBe('guardrail_rejection');
    expect(result.reward).toBeLessThan(-0.5);
  });

  it('Python fixed-point formatting rounds exact ties to even', () => {
    expect([pyFixed(0.5, 0), pyFixed(1.5, 0), pyFixed(2.5, 0), pyFixed(0.125, 2), pyFixed(0.375, 2), pyFixed(-2.5, 0)]).toEqual(['0', '2', '2', '0.12', '0.38', '-2']);
    expect([pyFixed(0.15, 1), pyFixed(2.675, 2), pyFixed(25, 0)]).toEqual(['0.1', '2.67', '25']);
  });
});
