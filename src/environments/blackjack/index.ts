// NeMo Gym's blackjack gymnasium environment, seeded: reset draws a shoe seed from the rng it is given,
// and the state records how many cards have left the shoe, so a resumed episode deals the same cards.
import { inputItems, type ConversationItem, type MessageItem } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { seededRng } from '../../util/rng';
import { assistantMessage } from '../example_single_tool_call';
import { asEnvironment, turnText, type GymnasiumEnvironment } from '../gymnasium';
import { drawCard, handObservation, parseDecision, playTurn, type Card, type Hands } from './game';

export interface BlackjackState extends Hands {
  seed: number;
  /** Cards drawn from the shoe so far. */
  dealt: number;
}

/** The shoe of `seed` with its first `dealt` cards gone. */
function shoe(seed: number, dealt: number): { draw: () => Card; dealt: () => number } {
  const rng = seededRng(seed);
  for (let i = 0; i < dealt; i++) rng.next();
  let count = dealt;
  return {
    draw: () => {
      count++;
      return drawCard(rng);
    },
    dealt: () => count,
  };
}

export const blackjackGym: GymnasiumEnvironment<TaskRow, BlackjackState> = {
  name: 'blackjack',
  description: 'Blackjack against a dealer who draws to 17; hit or stand with <action> tags. Reward +1 win, 0 draw, −1 loss.',
  taskSchema: TaskRow,
  maxSteps: 5,
  reset(_task, rng) {
    const seed = rng.int(2 ** 32);
    const cards = shoe(seed, 0);
    const player = [cards.draw(), cards.draw()];
    const dealer = [cards.draw(), cards.draw()];
    return { observation: handObservation({ player, dealer }), info: {}, state: { seed, dealt: cards.dealt(), player, dealer } };
  },
  step(_task, state, turn) {
    const cards = shoe(state.seed, state.dealt);
    const result = playTurn(state, parseDecision(turnText(turn)), cards.draw);
    return {
      observation: result.observation,
      reward: result.reward,
      terminated: result.terminated,
      truncated: false,
      info: result.info,
      state: { seed: state.seed, dealt: cards.dealt(), ...result.hands },
    };
  },
  failureReason: (episode) => (episode.reward > 0 ? undefined : String(episode.info.result ?? 'no_result')),
  oracle(task, history, { correct }) {
    const value = latestHandValue([...inputItems(task.responses_create_params.input), ...history]);
    // A sound policy hits below 17; the careless one hits exactly when it should not.
    const hit = value !== undefined && (correct ? value < 17 : value >= 12);
    return [assistantMessage(`<action>${hit ? 'hit' : 'stand'}</action>`)];
  },
};

function latestHandValue(items: readonly ConversationItem[]): number | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as MessageItem;
    if (item.role !== 'user' || typeof item.content !== 'string') continue;
    const match = /^Your hand: .* = (\d+)$/m.exec(item.content);
    if (match) return Number(match[1]);
  }
  return undefined;
}

export const blackjack = asEnvironment(blackjackGym);
