// blackjack against NeMo Gym. NeMo Gym deals with an unseeded RNG, so its recorded rewards cannot be
// replayed through reset/step; instead each recorded game is rebuilt from its observations and final
// info and played again with our rules (observations, info and reward must match). Our deals are seeded:
// the same rollout always gets the same cards, also after a resume from the persisted state.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blackjack as env, blackjackGym as gym, type BlackjackState } from '../../src/environments/blackjack';
import { handObservation, handValue, parseDecision, playTurn, RANKS, type Card } from '../../src/environments/blackjack/game';
import { advance, episodeRng, startEpisode, turnText, type Episode } from '../../src/environments/gymnasium';
import { blackjackOracle } from '../../src/environments/blackjack/oracle';
import type { ConversationItem, MessageItem, ResponseObject } from '../../src/schemas/responses';
import type { TaskRow } from '../../src/schemas/task';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { settled } from './env_helpers';

const dir = path.join(FIXTURES, 'blackjack');
const task = readJsonl(path.join(dir, 'example.jsonl'))[0] as TaskRow;
const say = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const isUser = (i: ConversationItem) => (i as MessageItem).role === 'user';
const cards = (hand: string) => hand.slice(1, -1).split(', ') as Card[];

describe('blackjack rules against NeMo Gym recorded games', () => {
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: MessageItem[] };
    response: ResponseObject;
    reward: number;
    info: { player: string; dealer?: string };
  }[];
  rollouts.forEach((rollout, i) => {
    it(`game ${i}: replaying the decisions on the recorded cards gives ${rollout.info.player} and reward ${rollout.reward}`, () => {
      const opening = String(rollout.responses_create_params.input.at(-1)!.content);
      const [, first, second, up] = /Your hand: \[(\S+), (\S+)\] = \d+\nDealer shows: (\S+)/.exec(opening)!;
      const player = cards(rollout.info.player);
      // The hole card of a busted game was never shown; any card replays it.
      const dealer = rollout.info.dealer ? cards(rollout.info.dealer) : [up as Card, '2' as Card];
      expect(handObservation({ player: [first as Card, second as Card], dealer })).toBe(opening);
      const shoe = [...player.slice(2), ...dealer.slice(2)];
      const draw = () => shoe.shift()!;
      let hands = { player: player.slice(0, 2), dealer: dealer.slice(0, 2) };
      const output = rollout.response.output;
      let reward = 0;
      let info = {};
      for (let start = 0; start < output.length;) {
        let end = start;
        while (end < output.length && !isUser(output[end]!)) end++;
        const turn = playTurn(hands, parseDecision(turnText(output.slice(start, end))), draw);
        hands = turn.hands;
        reward += turn.reward;
        info = turn.info;
        if (end < output.length) expect(turn.observation).toBe((output[end] as MessageItem).content);
        else expect(turn.terminated).toBe(true);
        start = end + 1;
      }
      expect(shoe).toEqual([]);
      expect(reward).toBe(rollout.reward);
      expect(info).toEqual(rollout.info);
    });
  });
});

function play(row: TaskRow, decisions: string[]): { episode: Episode<BlackjackState>; output: ConversationItem[]; opening: ConversationItem[] } {
  const start = startEpisode(gym, row);
  let episode = start.episode;
  const output: ConversationItem[] = [];
  for (const decision of decisions) {
    const step = advance(gym, row, episode, [say(`<action>${decision}</action>`)]);
    output.push(say(`<action>${decision}</action>`), ...step.append);
    episode = step.episode;
    if (step.done) break;
  }
  return { episode, output, opening: start.input };
}

describe('blackjack seeded episodes', () => {
  it('deals the same cards for the same rng and different ones across rollouts', () => {
    expect(gym.reset(task, seededRng(42))).toEqual(gym.reset(task, seededRng(42)));
    const deals = new Set(Array.from({ length: 20 }, (_, i) => JSON.stringify(startEpisode(gym, { ...task, _ng_rollout_id: `0-${i}` }).input)));
    expect(deals.size).toBeGreaterThan(10);
    const row = { ...task, _ng_rollout_id: '0-3' };
    expect(play(row, ['hit', 'hit', 'stand'])).toEqual(play(row, ['hit', 'hit', 'stand']));
  });

  it('resumes from a JSON round-trip of its state with the same cards', () => {
    const row = { ...task, _ng_rollout_id: '7-1' };
    const { episode } = startEpisode(gym, row, episodeRng(gym.name, row));
    const hit = advance(gym, row, episode, [say('<action>hit</action>')]);
    const resumed = JSON.parse(JSON.stringify(hit.episode)) as Episode<BlackjackState>;
    expect(advance(gym, row, resumed, [say('<action>stand</action>')])).toEqual(advance(gym, row, hit.episode, [say('<action>stand</action>')]));
    expect(hit.episode.state.dealt).toBe(5);
  });

  it('verifies by replaying the episode from the rollout identity, and notices another deal', () => {
    for (let i = 0; i < 10; i++) {
      const row = { ...task, _ng_rollout_id: `1-${i}` };
      const { episode, output } = play(row, ['hit', 'stand']);
      const verdict = settled(env.verify(row, { id: 'r', output }, { state: episode }));
      expect(verdict).toMatchObject({ reward: episode.reward, terminated: true, truncated: false, info: episode.info });
      expect(verdict.failure_reason).toBe(episode.reward > 0 ? undefined : episode.info.result);
      const other = settled(env.verify({ ...row, _ng_rollout_id: `2-${i}` }, { id: 'r', output }, { state: episode }));
      if (JSON.stringify(other.info) !== JSON.stringify(episode.info)) expect(other.failure_reason).toBe('replay_diverged');
    }
  });

  it('keeps NeMo Gym recorded rollouts apart: their deals are not ours', () => {
    const rollout = readJsonl(path.join(dir, 'example_rollouts.jsonl'))[0] as { response: ResponseObject };
    expect(settled(env.verify(task, rollout.response, { state: settled(env.seedSession(task)) })).failure_reason).toBe('replay_diverged');
  });
});

describe('blackjack rules', () => {
  it('counts aces as 11 or 1 and faces as 10', () => {
    expect(handValue(['A', 'K'])).toBe(21);
    expect(handValue(['A', 'A', '9'])).toBe(21);
    expect(handValue(['A', 'A', 'A', 'K', 'K'])).toBe(23);
    expect(handValue(['J', 'Q'])).toBe(20);
    expect(RANKS).toHaveLength(13);
  });

  it('has the dealer stand on 17 (soft too) and draw below', () => {
    const draws: Card[] = ['5', '4'];
    expect(playTurn({ player: ['10', '8'], dealer: ['A', '6'] }, 'stand', () => draws.shift()!)).toMatchObject({ reward: 1, info: { dealer_value: 17 } });
    expect(playTurn({ player: ['10', '7'], dealer: ['10', '2'] }, 'stand', () => draws.shift()!)).toMatchObject({
      reward: 0,
      info: { result: 'draw', dealer: '[10, 2, 5]', dealer_value: 17 },
    });
    expect(playTurn({ player: ['10', '6'], dealer: ['9', '9'] }, 'stand', () => '2')).toMatchObject({ reward: -1, info: { result: 'loss' } });
    expect(playTurn({ player: ['10', '6'], dealer: ['10', '6'] }, 'stand', () => 'K')).toMatchObject({ reward: 1, info: { dealer_value: 26 } });
  });

  it('busts above 21 and keeps asking below', () => {
    expect(playTurn({ player: ['10', '6'], dealer: ['9', '9'] }, 'hit', () => 'K')).toMatchObject({
      reward: -1,
      terminated: true,
      info: { result: 'bust', player: '[10, 6, K]', value: 26 },
    });
    expect(playTurn({ player: ['2', '3'], dealer: ['9', '9'] }, 'hit', () => '4').observation).toBe(
      'Your hand: [2, 3, 4] = 9\nDealer shows: 9\nRespond with <action>hit</action> or <action>stand</action>.',
    );
  });

  it('reads the action tag case-insensitively, takes the first, and stands without one (malformed or empty replies)', () => {
    expect(parseDecision('Thinking… <ACTION> Hit </Action>')).toBe('hit');
    expect(parseDecision('<action>stand</action> then <action>hit</action>')).toBe('stand');
    expect(parseDecision('I will hit')).toBe('stand');
    expect(parseDecision('<action>hitt</action>')).toBe('stand');
    expect(parseDecision('')).toBe('stand');
    const { episode } = startEpisode(gym, task);
    expect(advance(gym, task, episode, []).episode.terminated).toBe(true);
  });

  it('has an oracle that follows the hand shown in the latest observation', () => {
    const row = { ...task, _ng_rollout_id: '9-9' };
    const { input } = startEpisode(gym, row);
    const withHand = { ...row, responses_create_params: { ...row.responses_create_params, input: [...(row.responses_create_params.input as ConversationItem[]), ...input] } };
    const value = Number(/= (\d+)/.exec(String((input[0] as MessageItem).content))![1]);
    const reply = turnText(blackjackOracle(withHand, [], { correct: true, rng: seededRng(1) }));
    expect(reply).toBe(value < 17 ? '<action>hit</action>' : '<action>stand</action>');
    const history = [say('<action>hit</action>'), { type: 'message', role: 'user', content: handObservation({ player: ['10', '9'], dealer: ['5', '5'] }) }] as ConversationItem[];
    expect(turnText(blackjackOracle(row, history, { correct: true, rng: seededRng(1) }))).toBe('<action>stand</action>');
    expect(turnText(blackjackOracle(row, history, { correct: false, rng: seededRng(1) }))).toBe('<action>hit</action>');
  });
});
