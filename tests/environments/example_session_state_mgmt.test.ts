// example_session_state_mgmt against NeMo Gym: seeding the session and replaying a recorded episode's tool
// calls gives the recorded tool outputs and reward; the counter state stays per session and JSON-safe.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleSessionStateMgmt as env, CounterTask } from '../../src/environments/example_session_state_mgmt';
import { exampleSessionStateMgmtOracle } from '../../src/environments/example_session_state_mgmt/oracle';
import { seededRng } from '../../src/util/rng';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';
import { replayToolCalls, settled } from './env_helpers';

const dir = path.join(FIXTURES, 'example_session_state_mgmt');
const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];

describe('example_session_state_mgmt conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    response: ResponseObject;
    reward: number;
  }[];
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout ${i}: seed + replay reproduces the tool outputs and reward ${rollout.reward}`, async () => {
      const row = CounterTask.parse(task);
      const { state, calls } = await replayToolCalls(env, row, settled(env.seedSession(row)), rollout.response.output);
      expect(calls.map((c) => c.name)).toEqual(['increment_counter', 'increment_counter', 'get_counter_value']);
      for (const call of calls) expect(call.ours).toEqual(call.recorded);
      expect(settled(env.verify(row, rollout.response, { state })).reward).toBe(rollout.reward);
    });
  });
});

describe('example_session_state_mgmt tools and verify', () => {
  const row = CounterTask.parse({ responses_create_params: { input: [] }, initial_count: 3, expected_count: 6 });
  const { increment_counter, get_counter_value } = env.tools;

  it('keeps each session separate and never mutates a state it was given', async () => {
    const a = settled(env.seedSession(row));
    const b = settled(env.seedSession(row));
    const after = await increment_counter!.run({ count: 3 }, { task: row, state: a });
    expect(after).toEqual({ status: 200, body: { success: true }, state: { count: 6 } });
    expect(a).toEqual({ count: 3 });
    expect((await get_counter_value!.run({}, { task: row, state: b })).body).toEqual({ count: 3 });
    expect(JSON.parse(JSON.stringify(after.state))).toEqual(after.state);
  });

  it('accepts negative and zero increments, and ignores get_counter_value arguments', async () => {
    let state = settled(env.seedSession(row));
    for (const count of [0, -5, 8]) state = (await increment_counter!.run({ count }, { task: row, state })).state;
    expect(state).toEqual({ count: 6 });
    expect(get_counter_value!.args.safeParse({ anything: 1 }).success).toBe(true);
    expect(env.verify(row, { id: 'r', output: [] }, { state })).toEqual({ reward: 1 });
  });

  it('rejects non-integer increments (FastAPI answers 422)', () => {
    for (const args of [{ count: 1.5 }, { count: 'two' }, {}, { count: null }]) {
      expect(increment_counter!.args.safeParse(args).success).toBe(false);
    }
  });

  it('scores 0 with a reason when the final count is off', () => {
    expect(env.verify(row, { id: 'r', output: [] }, { state: { count: 7 } })).toEqual({ reward: 0, failure_reason: 'wrong_final_count' });
  });
});

describe('example_session_state_mgmt oracle', () => {
  it('plays increment, read, answer; correct ends on expected_count, wrong one off by one', async () => {
    const rng = seededRng('counter');
    for (const raw of tasks) {
      const task = CounterTask.parse(raw);
      for (const correct of [true, false]) {
        let state = settled(env.seedSession(task));
        const history: ConversationItem[] = [];
        for (let turn = 0; turn < 5; turn++) {
          const items = exampleSessionStateMgmtOracle(task, history, { correct, rng });
          history.push(...items);
          const last = items.at(-1)!;
          if (last.type !== 'function_call') break;
          const tool = env.tools[last.name]!;
          const reply = await tool.run(tool.args.parse(JSON.parse(last.arguments)), { task, state });
          state = reply.state;
          history.push({ type: 'function_call_output', call_id: last.call_id, output: JSON.stringify(reply.body) });
        }
        expect(history.at(-1)!.type).toBe('message');
        expect(settled(env.verify(task, { id: 'r', output: history }, { state })).reward).toBe(correct ? 1 : 0);
      }
    }
  });
});
