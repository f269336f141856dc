// Keyword instructions: words that must, must not, or must so often appear. Keywords are spliced
// into regexes unescaped and matched case-insensitively, exactly as IFEval does, so a row's keyword
// is a pattern and matches under the regex deadline.
import { pySplit, pyStrip } from '../../../python/str';
import { pyCount, pySearch } from '../../../python/regex';
import { pyIndex } from '../../../python/sequence';
import { truthy } from '../../../python/values';
import { splitIntoSentences } from '../text/sentences';
import { wordTokenize } from '../text/word_tokenize';
import { compare, countOr, keywordOr, num, randint, randomWords, relationOr, str, type Instruction } from './types';

const I = 'i';
const ROW_PATTERN = { guarded: true };

/** Python's sorted()/set() of a list or a string (which iterates characters). */
function wordsOf(v: unknown): string[] {
  if (typeof v === 'string') return [...v];
  if (Array.isArray(v)) return v.map(str);
  throw new TypeError('expected a list of words');
}

const existence: Instruction = {
  params: ['keywords'],
  build({ keywords }, rng) {
    const words = !truthy(keywords) ? randomWords(rng, 2) : wordsOf(keywords);
    return (text) => words.every((w) => pySearch(w, text, I, ROW_PATTERN));
  },
};

const frequency: Instruction = {
  params: ['keyword', 'frequency', 'relation'],
  build({ keyword, frequency: f, relation: r }, rng) {
    const word = keywordOr(keyword, rng);
    const threshold = countOr(f, rng, 1, 3);
    const relation = relationOr(r, rng);
    return (text) => compare(pyCount(word, text, I, ROW_PATTERN), relation, threshold);
  },
};

const forbiddenWords: Instruction = {
  params: ['forbidden_words'],
  build({ forbidden_words }, rng) {
    const words = !truthy(forbidden_words) ? randomWords(rng, 2) : [...new Set(wordsOf(forbidden_words))];
    return (text) => !words.some((w) => pySearch(`\\b${w}\\b`, text, I, ROW_PATTERN));
  },
};

const ASCII_LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'];

export const letterFrequency: Instruction = {
  params: ['letter', 'let_frequency', 'let_relation'],
  build({ letter, let_frequency, let_relation }, rng) {
    const given = letter === undefined ? '' : str(letter);
    const valid = [...given].length === 1 && /^[a-z]$/.test(given.toLowerCase());
    const chosen = (valid ? pyStrip(given) : rng.pick(ASCII_LETTERS)).toLowerCase();
    const threshold = countOr(let_frequency, rng, 1, 10);
    const relation = relationOr(let_relation, rng);
    return (text) => compare([...text.toLowerCase()].filter((c) => c === chosen).length, relation, threshold);
  },
};

const wordOnce: Instruction = {
  params: ['keyword'],
  build({ keyword }, rng) {
    const word = keywordOr(keyword, rng);
    return (text) => pyCount(word, text, I, ROW_PATTERN) === 1;
  },
};

const excludeWordHarder: Instruction = {
  params: ['keyword', 'instruction'],
  build({ keyword, instruction }, rng) {
    const word = !truthy(keyword) ? pyIndex(pySplit(str(instruction)), rng.int(pySplit(str(instruction)).length)) : pyStrip(str(keyword));
    return (text) => !text.includes(` ${word} `);
  },
};

const noAdjacentConsecutive: Instruction = {
  params: [],
  build: () => (text) => {
    const words = pySplit(text);
    for (let i = 0; i + 1 < words.length; i++) {
      const a = pyIndex(words[i]!, 0).toLowerCase();
      const b = pyIndex(words[i + 1]!, 0).toLowerCase();
      if ([...a].length !== 1 || [...b].length !== 1) return false;
      if (b.codePointAt(0)! - a.codePointAt(0)! === 1) return false;
    }
    return true;
  },
};

const palindrome: Instruction = {
  params: [],
  build: () => (text) => pySplit(text).some((w) => [...w].reverse().join('') === w),
};

const keywordSpecificPosition: Instruction = {
  params: ['keyword', 'n', 'm'],
  build({ keyword, n, m }, rng) {
    const word = !truthy(keyword) ? randomWords(rng, 1)[0]! : pyStrip(typeof keyword === 'string' ? keyword : str(pyIndex(keyword as unknown[], 0)));
    const nth = !truthy(n) ? randint(rng, 1, 20) : num(n);
    const mth = !truthy(m) ? randint(rng, 1, 30) : num(m);
    return (text) => {
      const sentences = splitIntoSentences(text);
      if (sentences.length < nth) return false;
      const words = wordTokenize(pyIndex(sentences, nth - 1));
      if (words.length < mth) return false;
      return pyIndex(words, mth - 1) === word;
    };
  },
};

const startEnd: Instruction = {
  params: [],
  build: () => (text) => {
    const words = wordTokenize(text);
    return words.length >= 2 && words[0]!.toLowerCase() === words.at(-1)!.toLowerCase();
  },
};

const countIncrementWord: Instruction = {
  params: ['keyword1', 'keyword2'],
  build({ keyword1, keyword2 }) {
    // A missing keyword becomes a one-word list in Python, which re.findall rejects.
    if (!truthy(keyword1) || !truthy(keyword2)) throw new TypeError('first argument must be string or compiled pattern');
    const [k1, k2] = [pyStrip(str(keyword1)), pyStrip(str(keyword2))];
    return (text) => pyCount(k1, text, I, ROW_PATTERN) === 1 && pyCount(k2, text, I, ROW_PATTERN) === 2;
  },
};

export const KEYWORD_INSTRUCTIONS: Record<string, Instruction> = {
  'keywords:existence': existence,
  'keywords:frequency': frequency,
  'keywords:forbidden_words': forbiddenWords,
  'keywords:letter_frequency': letterFrequency,
  'keywords:word_once': wordOnce,
  'keywords:word_count_different_numbers': frequency,
  'keywords:exclude_word_harder': excludeWordHarder,
  'keywords:no_adjacent_consecutive': noAdjacentConsecutive,
  'keywords:palindrome': palindrome,
  'keywords:keyword_specific_position': keywordSpecificPosition,
  'keywords:start_end': startEnd,
  'count:count_increment_word': countIncrementWord,
};
