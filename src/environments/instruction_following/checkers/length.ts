// Length and layout-count instructions: sentences (NLTK Punkt), words (\w+ runs), paragraphs split
// by "***" or blank lines, and the open-instruct counting variants.
import { pySplit, pyStrip } from '../../../python/str';
import { pyCount, pyRegExp } from '../../../python/regex';
import { pyIndex } from '../../../python/sequence';
import { truthy } from '../../../python/values';
import { sentTokenize } from '../text/punkt';
import { splitIntoSentences } from '../text/sentences';
import { wordTokenize } from '../text/word_tokenize';
import { compare, countOr, num, randint, randomWords, RELATIONS, relationOr, str, type Instruction } from './types';

const DIVIDER = pyRegExp('\\s?\\*\\*\\*\\s?');

/** Non-empty pieces, where an empty piece is tolerated only first or last; null if one sits in the middle. */
function countPieces(pieces: readonly string[]): number | null {
  let n = pieces.length;
  for (let i = 0; i < pieces.length; i++) {
    if (pyStrip(pieces[i]!) !== '') continue;
    if (i === 0 || i === pieces.length - 1) n--;
    else return null;
  }
  return n;
}

const numberSentences: Instruction = {
  params: ['num_sentences', 'relation'],
  build({ num_sentences, relation: r }, rng) {
    const threshold = countOr(num_sentences, rng, 1, 20);
    const relation = relationOr(r, rng);
    return (text) => compare(sentTokenize(text).length, relation, threshold);
  },
};

const numberParagraphs: Instruction = {
  params: ['num_paragraphs'],
  build({ num_paragraphs }, rng) {
    const wanted = countOr(num_paragraphs, rng, 1, 5);
    return (text) => countPieces(text.split(DIVIDER)) === wanted;
  },
};

const numberWords: Instruction = {
  params: ['num_words', 'relation'],
  build({ num_words, relation: r }, rng) {
    const threshold = countOr(num_words, rng, 100, 500);
    const relation = relationOr(r, rng);
    return (text) => compare(countWords(text), relation, threshold);
  },
};

/** instructions_util.count_words: NLTK's RegexpTokenizer(r"\w+"). */
export function countWords(text: string): number {
  return pyCount('\\w+', text);
}

const PARAGRAPH_PUNCTUATION = new Set(['.', ',', '?', '!', "'", '"']);

const nthParagraphFirstWord: Instruction = {
  params: ['num_paragraphs', 'nth_paragraph', 'first_word'],
  build({ num_paragraphs, nth_paragraph, first_word }, rng) {
    const total = countOr(num_paragraphs, rng, 1, 5);
    const given = nth_paragraph === undefined ? undefined : num(nth_paragraph);
    const nth = given === undefined || given <= 0 || given > total ? randint(rng, 1, total + 1) : given;
    const word = (first_word === undefined ? randomWords(rng, 1)[0]! : str(first_word)).toLowerCase();
    return (text) => {
      const paragraphs = text.split('\n\n');
      const count = paragraphs.filter((p) => pyStrip(p) !== '').length;
      if (nth > count) return false;
      const paragraph = pyStrip(pyIndex(paragraphs, nth - 1));
      if (!paragraph) return false;
      const token = pySplit(paragraph)[0]!.replace(/^'+/, '').replace(/^"+/, '');
      let first = '';
      for (const ch of token) {
        if (PARAGRAPH_PUNCTUATION.has(ch)) break;
        first += ch.toLowerCase();
      }
      return count === total && first === word;
    };
  },
};

const twoParagraphs = (split: (text: string) => string[]): Instruction => ({
  params: [],
  build: () => (text) => countPieces(split(text)) === 2,
});

const countingComposition: Instruction = {
  params: ['n_sent', 'n_words'],
  build({ n_sent, n_words }, rng) {
    const sentencesEach = !truthy(n_sent) ? randint(rng, 2, 3) : num(n_sent);
    const wordsEach = !truthy(n_words) ? randint(rng, 2, 3) : num(n_words);
    return (text) => {
      const paragraphs = text.split(DIVIDER);
      let count = paragraphs.length;
      for (let i = 0; i < paragraphs.length; i++) {
        const paragraph = paragraphs[i]!;
        if (pyStrip(paragraph) === '') {
          if (i === 0 || i === paragraphs.length - 1) count--;
          else return false;
        }
        // Python goes on to count this (possibly empty) paragraph's sentences too.
        const sentences = splitIntoSentences(paragraph);
        if (sentences.length !== sentencesEach) return false;
        if (sentences.some((s) => wordTokenize(s).length !== wordsEach)) return false;
      }
      return count === 3;
    };
  },
};

const lowercaseCounting: Instruction = {
  params: ['N'],
  build({ N }, rng) {
    const most = !truthy(N) ? randint(rng, 2, 3) : num(N);
    return (text) => pyCount('\\b[a-z]+\\b', text) <= most;
  },
};

const letterCounting: Instruction = {
  params: ['N', 'relation'],
  build({ N, relation }, rng) {
    const threshold = !truthy(N) ? randint(rng, 2, 3) : num(N);
    // Unlike the other checkers, this one accepts any relation; an unknown one never passes.
    const rel = !truthy(relation) ? rng.pick(RELATIONS) : relation;
    return (text) => {
      const letters = pyCount('[a-zA-Z]', text);
      if (rel === 'at least') return letters >= threshold;
      if (rel === 'less than') return letters < threshold;
      return false;
    };
  },
};

const countUnique: Instruction = {
  params: [],
  build: () => (text) => {
    const words = wordTokenize(text);
    return new Set(words).size === words.length;
  },
};

export const LENGTH_INSTRUCTIONS: Record<string, Instruction> = {
  'length_constraints:number_sentences': numberSentences,
  'length_constraints:number_paragraphs': numberParagraphs,
  'length_constraints:number_words': numberWords,
  'length_constraints:nth_paragraph_first_word': nthParagraphFirstWord,
  'paragraphs:paragraphs': twoParagraphs((text) => text.split(DIVIDER)),
  'paragraphs:paragraphs2': twoParagraphs((text) => text.split('\n\n')),
  'count:counting_composition': countingComposition,
  'count:lowercase_counting': lowercaseCounting,
  'letters:letter_counting': letterCounting,
  'count:count_unique': countUnique,
};
