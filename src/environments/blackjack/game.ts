// Blackjack's rules as NeMo Gym plays them: an endless shoe (every card drawn uniformly from the 13
// ranks), aces worth 11 or 1, the dealer drawing to 17 (standing on soft 17), +1 win / 0 draw / −1 loss.
import type { Rng } from '../../util/rng';

export const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'] as const;
export type Card = (typeof RANKS)[number];

export interface Hands {
  player: Card[];
  dealer: Card[];
}

export function handValue(hand: readonly Card[]): number {
  let total = 0;
  for (const card of hand) total += card === 'A' ? 11 : 'JQK'.includes(card) ? 10 : Number(card);
  for (let aces = hand.filter((c) => c === 'A').length; total > 21 && aces > 0; aces--) total -= 10;
  return total;
}

export function formatHand(hand: readonly Card[]): string {
  return `[${hand.join(', ')}]`;
}

export function handObservation({ player, dealer }: Hands): string {
  return `Your hand: ${formatHand(player)} = ${handValue(player)}\n` + `Dealer shows: ${dealer[0]}\n` + 'Respond with <action>hit</action> or <action>stand</action>.';
}

export function drawCard(rng: Rng): Card {
  return rng.pick(RANKS);
}

/** Python's `re.search(r"<action>\s*(hit|stand)\s*</action>", text, re.IGNORECASE)`; no tag means stand. */
export function parseDecision(text: string): 'hit' | 'stand' {
  const match = /<action>\s*(hit|stand)\s*<\/action>/iu.exec(text);
  return match ? (match[1]!.toLowerCase() as 'hit' | 'stand') : 'stand';
}

export interface TurnResult {
  hands: Hands;
  observation: string | null;
  reward: number;
  terminated: boolean;
  info: Record<string, unknown>;
}

/** One decision. `draw` supplies the next card from the shoe; the hands passed in are not modified. */
export function playTurn(hands: Hands, decision: 'hit' | 'stand', draw: () => Card): TurnResult {
  const player = [...hands.player];
  const dealer = [...hands.dealer];
  if (decision === 'hit') {
    player.push(draw());
    const value = handValue(player);
    if (value > 21) {
      const info = { result: 'bust', player: formatHand(player), value };
      return { hands: { player, dealer }, observation: null, reward: -1, terminated: true, info };
    }
    return { hands: { player, dealer }, observation: handObservation({ player, dealer }), reward: 0, terminated: false, info: {} };
  }
  while (handValue(dealer) < 17) dealer.push(draw());
  const playerValue = handValue(player);
  const dealerValue = handValue(dealer);
  const [reward, result] = dealerValue > 21 || playerValue > dealerValue ? [1, 'win'] : playerValue === dealerValue ? [0, 'draw'] : [-1, 'loss'];
  const info = {
    result,
    player: formatHand(player),
    player_value: playerValue,
    dealer: formatHand(dealer),
    dealer_value: dealerValue,
  };
  return { hands: { player, dealer }, observation: null, reward, terminated: true, info };
}
