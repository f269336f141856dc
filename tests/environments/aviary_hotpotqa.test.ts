// aviary_hotpotqa against NeMo Gym 0.7.0 and Aviary: the recorded episodes' tool calls must replay to the
// recorded tool outputs and reward, and episodes played through Aviary's own HotPotQAEnv on page snapshots
// (aviary_hotpotqa.cases.py) must get the same replies, rewards and ends.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aviaryHotpotqa as env, AviaryHotpotqaTask, type HotpotqaEpisode } from '../../src/environments/aviary_hotpotqa';
import { containsGold, normalizeAnswer } from '../../src/environments/aviary_hotpotqa/answer';
import { aviaryHotpotqaOracle } from '../../src/environments/aviary_hotpotqa/oracle';
import { runTool } from '../../src/environments/tools';
import { reverifyEpisode } from '../../src/reverify/verify';
import { flattenTransitions } from '../../src/reverify/transitions';
import { seededRng } from '../../src/util/rng';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

interface Reply {
  status: number;
  body: unknown;
  state: HotpotqaEpisode;
}

/** Runs tool calls in order from a fresh session through the path a live rollout takes. */
async function play(task: AviaryHotpotqaTask, calls: [string, unknown][]): Promise<Reply[]> {
  let state = settled(env.seedSession(task));
  const replies: Reply[] = [];
  for (const [name, args] of calls) {
    const result = await runTool(env, task, state, name, JSON.stringify(args));
    state = result.state as HotpotqaEpisode;
    replies.push({ status: result.status, body: JSON.parse(result.output), state });
  }
  return replies;
}

const episode = (calls: [string, unknown][]): ResponseObject => ({
  id: 'r',
  object: 'response',
  output: calls.map(([name, args], i) => ({ type: 'function_call', call_id: `c${i}`, name, arguments: JSON.stringify(args) })),
});

const tasks = readJsonl(path.resolve(import.meta.dirname, '../../src/environments/aviary_hotpotqa/data/example.jsonl')).map((t) => AviaryHotpotqaTask.parse(t));
const rollouts = readJsonl(path.join(FIXTURES, 'aviary_hotpotqa', 'example_rollouts.jsonl')).map(flattenTransitions) as {
  _ng_task_index: number;
  responses_create_params: { input: { content: string }[] };
  response: ResponseObject;
  reward: number;
}[];

describe('aviary_hotpotqa conformance with NeMo Gym recorded rollouts', () => {
  rollouts.forEach((rollout, i) => {
    it(`rollout #${i} (task ${rollout._ng_task_index}) replays its tool outputs and reward ${rollout.reward}`, async () => {
      const task = tasks[rollout._ng_task_index]!;
      expect(task.responses_create_params.input).toEqual([{ role: 'user', content: rollout.responses_create_params.input[0]!.content }]);
      const output = rollout.response.output as ConversationItem[];
      const recorded = new Map(output.flatMap((item) => (item.type === 'function_call_output' ? [[item.call_id, item.output] as const] : [])));
      const calls = output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
      expect(calls.length).toBeGreaterThan(0);
      const replies = await play(
        task,
        calls.map((c) => [c.name, JSON.parse(c.arguments)]),
      );
      // Aviary replies with plain text; Gymflow's reply bodies are JSON strings of the same text.
      expect(replies.map((r) => r.body)).toEqual(calls.map((c) => recorded.get(c.call_id)));
      const outcome = await reverifyEpisode(env, task, rollout.response);
      expect(outcome).toMatchObject({ status: 'verified', result: { reward: rollout.reward } });
    });
  });
});

interface Case {
  wiki: unknown;
  answer: string;
  calls: [string, unknown][];
  steps: ({ output: string; reward: number; done: boolean } | { error: string })[];
}

const cases = readJsonl<Case>(path.join(import.meta.dirname, 'aviary_hotpotqa.cases.jsonl'));
const taskOf = (c: Case) => AviaryHotpotqaTask.parse({ responses_create_params: { input: [{ role: 'user', content: 'Question: Q?' }] }, answer: c.answer, wiki: c.wiki });
// Aviary calls a tool with whatever arguments the model sent: a number where a string belongs is used as
// is, an unknown argument name raises (NeMo Gym's /step answers 500). Gymflow answers both 422.
const wellTyped = (c: Case) =>
  c.calls.every(([name, args]) => {
    const keys = Object.keys(args as object);
    const expected = { search: 'entity', lookup: 'keyword', submit_answer: 'answer' }[name];
    return keys.length === 1 && keys[0] === expected && typeof (args as Record<string, unknown>)[expected!] === 'string';
  });

describe('aviary_hotpotqa against Aviary HotPotQAEnv on generated episodes', () => {
  it(`agrees on every reply, reward and end of ${cases.filter(wellTyped).length} episodes`, async () => {
    const mismatches: string[] = [];
    for (const c of cases.filter(wellTyped)) {
      const played = c.calls.slice(0, c.steps.length);
      const replies = await play(taskOf(c), played);
      let before = 0;
      replies.forEach((r, i) => {
        const step = c.steps[i] as { output: string; reward: number; done: boolean };
        const got = { output: r.body, reward: r.state.reward - before, done: r.state.done };
        before = r.state.reward;
        if (JSON.stringify(got) !== JSON.stringify(step)) mismatches.push(`${JSON.stringify(c.calls)} step ${i}: ${JSON.stringify(got)} != ${JSON.stringify(step)}`);
      });
    }
    expect(mismatches).toEqual([]);
    const rewarded = cases.filter((c) => c.steps.some((s) => 'reward' in s && s.reward > 0));
    expect(rewarded.length).toBeGreaterThan(50);
  });

  it('answers malformed arguments 422 and goes on, where Aviary used them as given or raised', async () => {
    const malformed = cases.filter((c) => !wellTyped(c));
    expect(malformed.length).toBeGreaterThan(0);
    for (const c of malformed) {
      const replies = await play(taskOf(c), c.calls.slice(0, c.steps.length));
      const bad = replies.find((r) => r.status !== 200)!;
      expect(bad.status).toBe(422);
      expect(bad.state).toMatchObject({ done: false, reward: 0 });
    }
    expect(malformed.map((c) => c.steps.at(-1))).toContainEqual({ error: "TypeError: HotPotQAEnv.search() got an unexpected keyword argument 'query'" });
  });
});

describe('aviary_hotpotqa answer check', () => {
  it.each([
    ['The Quick, Brown Fox!', 'quick brown fox'],
    ['An apple a day', 'apple day'],
    ['theatre  and\u00a0the\tend', 'theatre and end'],
    ['Arthur’s Magazine', 'arthur’s magazine'],
    ['', ''],
  ])('normalises %j to %j', (text, normal) => {
    expect(normalizeAnswer(text)).toBe(normal);
  });

  it('is right when the normalised answer contains the gold, case-folded', () => {
    expect(containsGold('It was President Richard Nixon.', 'President Richard Nixon')).toBe(true);
    expect(containsGold('Richard Milhous Nixon', 'President Richard Nixon')).toBe(false);
    expect(containsGold('STRASSE', 'Straße')).toBe(true);
    expect(containsGold('DIYARBAKIR', 'Dıyarbakır')).toBe(false);
  });
});

describe('aviary_hotpotqa tools and rewards', () => {
  const task = tasks[2]!; // Milhouse: President Richard Nixon
  const verify = async (calls: [string, unknown][]) => {
    const replies = await play(task, calls);
    return settled(env.verify(task, episode(calls), { state: replies.at(-1)!.state }));
  };

  it('pays 1 for a correct submission, 0 for a wrong one, and no answer is no_answer_submitted', async () => {
    expect(await verify([['submit_answer', { answer: 'It was president Richard Nixon' }]])).toMatchObject({ reward: 1, submitted_answer: 'It was president Richard Nixon' });
    expect(await verify([['submit_answer', { answer: 'Nixon' }]])).toMatchObject({ reward: 0, failure_reason: 'wrong_answer' });
    expect(await verify([['search', { entity: 'Milhouse Van Houten' }]])).toMatchObject({ reward: 0, failure_reason: 'no_answer_submitted', submitted_answer: null });
  });

  it('an empty argument ends the episode unscored; later calls are answered but change nothing', async () => {
    expect(
      await verify([
        ['search', { entity: '' }],
        ['submit_answer', { answer: 'President Richard Nixon' }],
      ]),
    ).toMatchObject({ reward: 0, failure_reason: 'tool_failure' });
    expect(await verify([['submit_answer', { answer: '' }]])).toMatchObject({ reward: 0, failure_reason: 'tool_failure' });
    const replies = await play(task, [
      ['submit_answer', { answer: 'President Richard Nixon' }],
      ['submit_answer', { answer: 'President Richard Nixon' }],
    ]);
    expect(replies.at(-1)!.state.reward).toBe(1);
  });

  it('arguments that are not JSON are answered 400 and do not end the episode', async () => {
    const state = settled(env.seedSession(task));
    const result = await runTool(env, task, state, 'search', '{"entity": ');
    expect(result.status).toBe(400);
    expect(result.state).toEqual(state);
  });

  it('a query the snapshot has no answer for lists the titles sharing the most words, and finds titles ignoring case', async () => {
    const oberoi = tasks[1]!;
    const [miss, hit] = await play(oberoi, [
      ['search', { entity: 'oberoi group history' }],
      ['search', { entity: 'the oberoi group' }],
    ]);
    expect(miss!.body).toBe("Search for 'oberoi group history' returned no results. Similar: ['The Oberoi Group'].");
    expect(hit!.body).toMatch(/^The Oberoi Group is a luxury hotel group/);
    const [none] = await play(oberoi, [['search', { entity: 'Zanzibar' }]]);
    expect(none!.body).toBe("Search for 'Zanzibar' returned no results. Similar: [].");
  });

  it('refuses a snapshot whose recorded search names a missing page, naming the field', () => {
    const parsed = AviaryHotpotqaTask.safeParse({ ...task, wiki: { pages: {}, searches: { x: { page: 'Nowhere' } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['wiki', 'searches', 'x', 'page'] });
  });

  it('refuses to search round a loop of disambiguation pages', async () => {
    // Every bracketed query leads back to the disambiguation page D.
    const searches = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${'['.repeat(i)}x${']'.repeat(i)}`, { page: 'D' }]));
    const looping = AviaryHotpotqaTask.parse({ ...task, wiki: { pages: { D: ['D may refer to:'] }, searches } });
    await expect(runTool(env, looping, settled(env.seedSession(looping)), 'search', '{"entity":"x"}')).rejects.toThrow(/more than 16 disambiguation pages/);
  });

  it('the oracle scores 1 when correct and 0 when not', async () => {
    for (const t of tasks) {
      for (const correct of [true, false]) {
        const history: ConversationItem[] = [];
        for (let turn = 0; turn < 3; turn++) history.push(...aviaryHotpotqaOracle(t, history, { correct, rng: seededRng(1) }));
        const outcome = await reverifyEpisode(env, t, { id: 'r', object: 'response', output: history });
        expect(outcome).toMatchObject({ status: 'verified', result: { reward: correct ? 1 : 0 } });
      }
    }
  });
});
