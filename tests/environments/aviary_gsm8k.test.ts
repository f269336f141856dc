// aviary_gsm8k against NeMo Gym 0.7.0 and Aviary: replaying the recorded episodes' tool calls must give
// the recorded tool outputs' values and the recorded reward; the calculator and the answer check must
// behave as Aviary's CalculatorEnv does.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aviaryGsm8k as env, AviaryGsm8kTask, isCorrect } from '../../src/environments/aviary_gsm8k';
import { evaluate } from '../../src/environments/aviary_gsm8k/calculator';
import { aviaryGsm8kOracle } from '../../src/environments/aviary_gsm8k/oracle';
import { flattenTransitions } from '../../src/reverify/transitions';
import { seededRng } from '../../src/util/rng';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

/** Runs the episode's tool calls in order from a fresh session: the final state and each reply with the recorded output. */
async function replayToolCalls(task: AviaryGsm8kTask, output: readonly ConversationItem[]) {
  const recorded = new Map(output.flatMap((i) => (i.type === 'function_call_output' ? [[i.call_id, i.output] as const] : [])));
  let state = settled(env.seedSession(task));
  const calls: { ours: unknown; recorded: unknown }[] = [];
  for (const call of output) {
    if (call.type !== 'function_call') continue;
    const tool = env.tools[call.name]!;
    const result = await tool.run(tool.args.parse(JSON.parse(call.arguments)), { task, state });
    state = result.state;
    calls.push({ ours: result.body, recorded: recorded.get(call.call_id) });
  }
  return { state, calls };
}

const tasks = readJsonl(path.resolve(import.meta.dirname, '../../src/environments/aviary_gsm8k/data/example.jsonl')).map((t) => AviaryGsm8kTask.parse(t));
const rollouts = readJsonl(path.join(FIXTURES, 'aviary_gsm8k', 'example_rollouts.jsonl')).map(flattenTransitions) as {
  _ng_task_index: number;
  responses_create_params: { input: { content: string }[] };
  response: ResponseObject;
  reward: number;
}[];

describe('aviary_gsm8k conformance with NeMo Gym recorded rollouts', () => {
  rollouts.forEach((rollout, i) => {
    it(`rollout #${i} (task ${rollout._ng_task_index}) replays to reward ${rollout.reward}`, async () => {
      const task = tasks[rollout._ng_task_index]!;
      expect(task.responses_create_params.input).toEqual([{ role: 'user', content: rollout.responses_create_params.input[0]!.content }]);
      const { state, calls } = await replayToolCalls(task, rollout.response.output);
      expect(calls.length).toBeGreaterThan(0);
      // Aviary prints Python's str() of the result (10, True); Gymflow's reply bodies are JSON values (10, true).
      for (const call of calls) expect(String(call.ours)).toBe(String(call.recorded).replace(/^True$/, 'true'));
      expect(settled(env.verify(task, rollout.response, { state })).reward).toBe(rollout.reward);
    });
  });
});

describe('aviary_gsm8k calculator (Aviary SafeMathEvaluator)', () => {
  it.each([
    ['12 * (50 / 60)', 10],
    ['3 * 2 * 2 * 52', 624],
    ['-2 ** 2', -4],
    ['2 ** -1', 0.5],
    ['2 ** 3 ** 2', 512],
    ['7 // 2', 3],
    ['-7 // 2', -4],
    ['-7 % 3', 2],
    ['7 % -3', -2],
    ['1_000 + 0x10', 1016],
    ['abs(-3) + max(1, 4, 2) - min(5, 6)', 2],
    ['round(2.5) + round(3.5)', 6],
    ['  1e3 / 4 ', 250],
    ['True + 1', 2],
  ])('%s = %d', (expr, value) => {
    expect(evaluate(expr)).toBe(value);
  });

  it.each(['1 / 0', '5 % 0', '0 ** -1', 'x + 1', 'sum(1, 2)', 'max(3)', 'pow(2, 3)', '2 +', '"a"', '1j', '(-8) ** 0.5', '', '[1, 2]'])('%j is an error', (expr) => {
    expect(() => evaluate(expr)).toThrow();
  });
});

describe('aviary_gsm8k rewards', () => {
  const task = tasks[1]!; // Betty's wallet: 5
  const run = async (calls: [string, Record<string, unknown>][]) => {
    const output: ConversationItem[] = calls.map(([name, args], i) => ({ type: 'function_call', call_id: `c${i}`, name, arguments: JSON.stringify(args) }));
    const { state } = await replayToolCalls(task, output);
    return settled(env.verify(task, { id: 'r', object: 'response', output }, { state }));
  };

  it('pays 1 for a correct submission within the relative tolerance, 0 for a wrong one, -1 for an unparsable one', async () => {
    expect(await run([['submit_answer', { answer: ' 5.0 ' }]])).toMatchObject({ reward: 1 });
    expect(await run([['submit_answer', { answer: '6' }]])).toMatchObject({ reward: 0, failure_reason: 'wrong_answer' });
    expect(await run([['submit_answer', { answer: '$5' }]])).toMatchObject({ reward: -1, failure_reason: 'unparsable_answer' });
    expect(isCorrect(5.0004, 5)).toBe(true);
    expect(isCorrect(5.001, 5)).toBe(false);
  });

  it('a failed calculation costs 1 and ends the episode: later calls are not scored', async () => {
    expect(
      await run([
        ['calculator', { expr: '1/0' }],
        ['submit_answer', { answer: '5' }],
      ]),
    ).toMatchObject({ reward: -1, failure_reason: 'tool_failure' });
    expect(
      await run([
        ['submit_answer', { answer: '5' }],
        ['submit_answer', { answer: '5' }],
      ]),
    ).toMatchObject({ reward: 1 });
  });

  it('no submission scores 0 with no_answer_submitted', async () => {
    expect(await run([['calculator', { expr: '100 - 95' }]])).toMatchObject({ reward: 0, failure_reason: 'no_answer_submitted' });
  });

  it('the oracle scores 1 when correct and 0 when not', async () => {
    for (const correct of [true, false]) {
      const history: ConversationItem[] = [];
      for (let turn = 0; turn < 3; turn++) history.push(...aviaryGsm8kOracle(task, history, { correct, rng: seededRng(1) }));
      const { state } = await replayToolCalls(task, history);
      expect(settled(env.verify(task, { id: 'r', object: 'response', output: history }, { state })).reward).toBe(correct ? 1 : 0);
    }
  });
});
