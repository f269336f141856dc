// example_multi_turn_gymnasium against NeMo Gym: stepping the recorded model turns through reset/step
// gives the recorded follow-ups, reward, terminated and truncated; verify replays the same episode from
// the response alone. Also covers the gymnasium_agent bookkeeping (advance, max_steps truncation).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleMultiTurnGymnasium as env, exampleMultiTurnGymnasiumGym as gym, MultiTurnTask } from '../../src/environments/example_multi_turn_gymnasium';
import { advance, isGymnasiumBacked, replayEpisode, startEpisode, turnText } from '../../src/environments/gymnasium';
import { exampleMultiStep } from '../../src/environments/example_multi_step';
import { exampleMultiTurnGymnasiumOracle } from '../../src/environments/example_multi_turn_gymnasium/oracle';
import type { ConversationItem, MessageItem, ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const dir = path.join(FIXTURES, 'example_multi_turn_gymnasium');
const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];

const say = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const isUser = (i: ConversationItem) => (i as MessageItem).role === 'user';

describe('example_multi_turn_gymnasium conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    _ng_task_index: number;
    response: ResponseObject;
    reward: number;
    terminated: boolean;
    truncated: boolean;
    info: Record<string, unknown>;
  }[];
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout ${i} (task ${rollout._ng_task_index}): the turns replay to reward ${rollout.reward}`, () => {
      const row = MultiTurnTask.parse(task);
      let { episode, input } = startEpisode(gym, row);
      expect(input).toEqual([]);
      const output = rollout.response.output;
      const appended: unknown[] = [];
      let done = false;
      for (let start = 0; start < output.length && !done;) {
        let end = start;
        while (end < output.length && !isUser(output[end]!)) end++;
        const step = advance(gym, row, episode, output.slice(start, end));
        episode = step.episode;
        done = step.done;
        appended.push(...step.append.map((m) => (m as MessageItem).content));
        start = end + step.append.length;
      }
      expect(appended).toEqual(output.filter(isUser).map((m) => (m as MessageItem).content));
      expect(episode).toMatchObject({ reward: rollout.reward, terminated: rollout.terminated, truncated: rollout.truncated, info: rollout.info });
      expect(settled(env.verify(row, rollout.response, { state: settled(env.seedSession(row)) }))).toEqual({
        reward: rollout.reward,
        terminated: true,
        truncated: false,
        info: {},
      });
    });
  });
});

describe('example_multi_turn_gymnasium episodes', () => {
  const task = MultiTurnTask.parse({
    responses_create_params: { input: 'Capital of France?' },
    follow_ups: ['Population?', 'A landmark?'],
    expected_answer: 'Eiffel',
  });

  it('sends the follow-ups in order, then grades the last turn case-insensitively (unicode too)', () => {
    let { episode } = startEpisode(gym, task);
    const first = advance(gym, task, episode, [say('Paris')]);
    expect(first).toMatchObject({ done: false, append: [{ role: 'user', content: 'Population?' }] });
    const second = advance(gym, task, first.episode, [say('2.1 million')]);
    expect(second.append).toEqual([{ type: 'message', role: 'user', content: 'A landmark?' }]);
    episode = advance(gym, task, second.episode, [say('La tour EIFFEL — très belle ✓')]).episode;
    expect(episode).toMatchObject({ reward: 1, terminated: true, truncated: false, steps: 3 });
    expect(JSON.parse(JSON.stringify(episode))).toEqual(episode);
  });

  it('scores a missing, empty or absent expected answer 0 with a reason', () => {
    const replies = (last: string): ResponseObject => ({
      id: 'r',
      output: [say('Paris'), { type: 'message', role: 'user', content: 'Population?' }, say('Big'), { type: 'message', role: 'user', content: 'A landmark?' }, say(last)],
    });
    expect(settled(env.verify(task, replies('The Louvre'), { state: null as never }))).toMatchObject({ reward: 0, failure_reason: 'expected_answer_missing' });
    expect(settled(env.verify(task, replies(''), { state: null as never }))).toMatchObject({ reward: 0, failure_reason: 'expected_answer_missing' });
    const noExpectation = MultiTurnTask.parse({ responses_create_params: { input: 'Hi' } });
    expect(settled(env.verify(noExpectation, { id: 'r', output: [say('anything')] }, { state: null as never }))).toMatchObject({ reward: 0 });
  });

  it('truncates after max_steps like gymnasium_agent, keeping the last observation', () => {
    const long = MultiTurnTask.parse({ responses_create_params: { input: 'Q' }, follow_ups: ['1', '2', '3', '4', '5', '6'], expected_answer: 'x' });
    let { episode } = startEpisode(gym, long);
    let last;
    for (let i = 0; i < gym.maxSteps; i++) {
      last = advance(gym, long, episode, [say('x')]);
      episode = last.episode;
    }
    expect(last).toMatchObject({ done: true, append: [{ content: '5' }] });
    expect(episode).toMatchObject({ truncated: true, terminated: false, reward: 0, steps: 5 });
  });

  it('flags a response that does not replay (unfinished, or environment items that differ)', () => {
    expect(settled(env.verify(task, { id: 'r', output: [say('Paris')] }, { state: null as never }))).toMatchObject({
      reward: 0,
      failure_reason: 'episode_unfinished',
    });
    const wrongFollowUp: ResponseObject = { id: 'r', output: [say('Paris'), { type: 'message', role: 'user', content: 'Something else?' }, say('Eiffel')] };
    expect(replayEpisode(gym, task, wrongFollowUp.output).diverged).toBe(true);
    expect(settled(env.verify(task, wrongFollowUp, { state: null as never })).failure_reason).toBe('replay_diverged');
  });

  it('is served as an ordinary environment without tools that exposes its gymnasium form', () => {
    expect(isGymnasiumBacked(env)).toBe(true);
    expect(env.gymnasium).toBe(gym);
    expect(env.tools).toEqual({});
    expect(isGymnasiumBacked(exampleMultiStep)).toBe(false);
    expect(settled(env.seedSession(task))).toEqual({ state: { turn: 0 }, steps: 0, reward: 0, terminated: false, truncated: false, info: {} });
  });

  it('reads text like NeMo Gym extract_text: string contents and output_text parts of message items', () => {
    const turn: ConversationItem[] = [
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'no' }] },
      { role: 'assistant', content: 'a' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'b' },
          { type: 'refusal', refusal: 'c' },
        ],
      },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ];
    expect(turnText(turn)).toBe('ab');
  });

  it('has an oracle that answers right or wrong on the final turn', () => {
    for (const correct of [true, false]) {
      const history: ConversationItem[] = [];
      let { episode } = startEpisode(gym, task);
      for (let done = false; !done;) {
        const turn = exampleMultiTurnGymnasiumOracle(task, history, { correct, rng: seededRng(3) });
        const step = advance(gym, task, episode, turn);
        history.push(...turn, ...step.append);
        ({ episode, done } = step);
      }
      expect(episode.reward).toBe(correct ? 1 : 0);
      expect(settled(env.verify(task, { id: 'r', output: history }, { state: episode })).reward).toBe(correct ? 1 : 0);
    }
  });
});
