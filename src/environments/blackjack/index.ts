// NeMo Gym's blackjack gymnasium environment, seeded: reset draws a shoe seed from the rng it is given,
// and the state records how many cards have left the shoe, so a resumed episode deals the same cards.
import { TaskRow } from '../../schemas/task';
import { seededRng } from '../../util/rng';
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
};

export const blackjack = asEnvironment(blackjackGym);
