// Language and letter-case instructions. Language is detected statistically (see text/language.ts);
// like langdetect's callers in IFEval, an undetectable text counts as following the instruction.
import { detectLanguage } from '../text/language';
import { pyIsLower, pyIsUpper } from '../../../python/str';
import { wordTokenize } from '../text/word_tokenize';
import { compare, num, randint, relationOr, type Instruction } from './types';

/** The languages IFEval can ask for (instructions_util.LANGUAGE_CODES); others make Python raise. */
const LANGUAGE_CODES = 'en es pt ar hi fr ru de ja it bn uk th ur ta te bg ko pl he fa vi ne sw kn mr gu pa ml fi'.split(' ');

const responseLanguage: Instruction = {
  params: ['language'],
  build({ language }, rng) {
    const code = language === undefined ? rng.pick(LANGUAGE_CODES) : language;
    if (typeof code !== 'string' || !LANGUAGE_CODES.includes(code)) throw new RangeError(`unknown language ${String(code)}`);
    return (text) => {
      const detected = detectLanguage(text);
      return detected === undefined || detected === code;
    };
  },
};

const englishIn = (isCase: (s: string) => boolean): Instruction => ({
  params: [],
  build: () => (text) => {
    if (!isCase(text)) return false;
    const detected = detectLanguage(text);
    return detected === undefined || detected === 'en';
  },
});

const capitalWordFrequency: Instruction = {
  params: ['capital_frequency', 'capital_relation'],
  build({ capital_frequency, capital_relation }, rng) {
    const threshold = capital_frequency === undefined ? randint(rng, 1, 20) : num(capital_frequency);
    const relation = relationOr(capital_relation, rng);
    return (text) => compare(wordTokenize(text).filter(pyIsUpper).length, relation, threshold);
  },
};

export const LANGUAGE_INSTRUCTIONS: Record<string, Instruction> = {
  'language:response_language': responseLanguage,
  'change_case:english_capital': englishIn(pyIsUpper),
  'change_case:english_lowercase': englishIn(pyIsLower),
  'change_case:capital_word_frequency': capitalWordFrequency,
};
