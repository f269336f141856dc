// First- and last-word instructions, for the whole answer or for every sentence of it.
import { PY_WHITESPACE_CLASS, PY_WORD_CLASS, pySplit, pyStrip } from '../../../python/str';
import { truthy } from '../../../python/values';
import { splitIntoSentences } from '../text/sentences';
import { keywordOr, randomWords, str, type Instruction } from './types';

const NON_WORD_NON_SPACE = new RegExp(`[^${PY_WORD_CLASS}${PY_WHITESPACE_CLASS}]`, 'gu');

/** A word compared without its punctuation: re.sub(r"[^\w\s]", "", word). */
const bare = (word: string) => word.replace(NON_WORD_NON_SPACE, '');

const firstWordSent: Instruction = {
  params: ['first_word'],
  build({ first_word }, rng) {
    // Python's non-string branch compares instead of assigning, then fails on the unset attribute.
    const word = !truthy(first_word) ? randomWords(rng, 1)[0]! : pyStrip(str(first_word));
    return (text) => splitIntoSentences(text).every((s) => pyStrip(s) !== '' && pySplit(s)[0]!.toLowerCase() === word.toLowerCase());
  },
};

const firstWordAnswer: Instruction = {
  params: ['first_word'],
  build({ first_word }, rng) {
    const word = keywordOr(first_word, rng);
    return (text) => pyStrip(text) !== '' && pySplit(text)[0]!.toLowerCase() === word.toLowerCase();
  },
};

const lastWordSent: Instruction = {
  params: ['last_word'],
  build({ last_word }, rng) {
    const given = Array.isArray(last_word) ? last_word[0] : last_word;
    const word = !truthy(last_word) ? randomWords(rng, 1)[0]! : pyStrip(str(given));
    return (text) => splitIntoSentences(text).every((s) => pyStrip(s) !== '' && bare(pySplit(s).at(-1)!).toLowerCase() === word.toLowerCase());
  },
};

const lastWordAnswer: Instruction = {
  params: ['last_word'],
  build({ last_word }, rng) {
    const word = keywordOr(last_word, rng);
    return (text) => {
      const words = pySplit(text);
      if (words.length === 0) throw new RangeError('list index out of range');
      return bare(words.at(-1)!).toLowerCase() === word.toLowerCase();
    };
  },
};

export const FIRST_LAST_INSTRUCTIONS: Record<string, Instruction> = {
  'first_word:first_word_sent': firstWordSent,
  'first_word:first_word_answer': firstWordAnswer,
  'last_word:last_word_sent': lastWordSent,
  'last_word:last_word_answer': lastWordAnswer,
};
