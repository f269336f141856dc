// The truth-teller/liar vocabularies of reasoning_gym's knights_knaves puzzles. The scorer recognises
// exactly these role words, so puzzles and answers must use them.

/** [truth-teller, liar] role words. */
export const ROLE_PAIRS: readonly (readonly [string, string])[] = [
  ['knight', 'knave'],
  ['pioneer', 'laggard'],
  ['saint', 'sinner'],
  ['hero', 'villain'],
  ['angel', 'devil'],
  ['altruist', 'egoist'],
  ['sage', 'fool'],
];

/** The metadata.knight_knave_terms shape reasoning_gym rows carry. */
export interface KnightKnaveTerms {
  knight: string;
  knave: string;
  a_knight: string;
  a_knave: string;
  Knight: string;
  Knave: string;
}

const withArticle = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export function termsFor([knight, knave]: readonly [string, string]): KnightKnaveTerms {
  return { knight, knave, a_knight: withArticle(knight), a_knave: withArticle(knave), Knight: capitalize(knight), Knave: capitalize(knave) };
}
