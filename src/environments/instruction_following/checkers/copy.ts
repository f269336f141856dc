// Copy instructions: repeat the prompt (whole, a span, or N times) or a phrase with one word changed.
import { pySplit, pyStrip } from '../../../python/str';
import { pyRegExp } from '../../../python/regex';
import { matchAllWithDeadline } from '../../../python/regex-deadline';
import { pySlice } from '../../../python/sequence';
import { truthy } from '../../../python/values';
import { num, randint, str, type Instruction } from './types';

/** Every copy instruction needs the prompt; Python raises without it. */
function promptOf(v: unknown): string {
  if (!truthy(v)) throw new RangeError('prompt_to_repeat must be set.');
  return str(v);
}

const same = (a: string, b: string) => pyStrip(a).toLowerCase() === pyStrip(b).toLowerCase();

const repeatPrompt: Instruction = {
  params: ['prompt_to_repeat'],
  build({ prompt_to_repeat }) {
    const prompt = promptOf(prompt_to_repeat);
    return (text) => pyStrip(text).toLowerCase().startsWith(pyStrip(prompt).toLowerCase());
  },
};

const copyExactly: Instruction = {
  params: ['prompt_to_repeat'],
  build({ prompt_to_repeat }) {
    const prompt = promptOf(prompt_to_repeat);
    return (text) => same(text, prompt);
  },
};

const copySpan: Instruction = {
  params: ['prompt_to_repeat', 'n_start', 'n_end'],
  build({ prompt_to_repeat, n_start, n_end }, rng) {
    const prompt = promptOf(prompt_to_repeat);
    const length = [...prompt].length;
    // Python re-draws a start of 0 too (`if not n_start`).
    const start = !truthy(n_start) ? randint(rng, 0, length - 2) : num(n_start);
    const end = !truthy(n_end) ? randint(rng, start + 1, length - 1) : num(n_end);
    return (text) => same(text, pySlice(prompt, start, end));
  },
};

const copyingMultiple: Instruction = {
  params: ['prompt_to_repeat', 'N'],
  build({ prompt_to_repeat, N }, rng) {
    const prompt = promptOf(prompt_to_repeat);
    const times = !truthy(N) ? randint(rng, 2, 3) : num(N);
    return (text) => {
      const copies = text.split('******');
      return copies.length === times && copies.every((c) => same(c, prompt));
    };
  },
};

const PHRASES = [
  'Dance like nobody is watching you',
  'The early bird catches the worm',
  'Time flies when having fun',
  'Every cloud has a silver lining',
  'Actions speak louder than words',
  "Don't judge a book by cover",
  'Live each day to the fullest',
  'All that glitters is not gold',
  'Laughter is the best medicine',
  'The pen is mightier than sword',
];

const repeatPhrase: Instruction = {
  params: ['phrase', 'small_n'],
  build({ phrase, small_n }, rng) {
    const reference = pySplit(!truthy(phrase) ? rng.pick(PHRASES) : pyStrip(str(phrase)));
    const times = !truthy(small_n) ? randint(rng, 2, 3) : num(small_n);
    // The row's phrase is spliced in unescaped, so the pattern matches under the regex deadline.
    const source = `${reference[0]} .*? ${reference.at(-1)}`;
    const pattern = pyRegExp(source);
    return (text) => {
      const found = matchAllWithDeadline(pattern, text, source).map((m) => pySplit(m[0]));
      if (found.length !== times) return false;
      // Python keeps only the last phrase's difference count for its final test.
      let differences = Number.NaN;
      for (const words of found) {
        if (words.length !== reference.length) return false;
        differences = words.filter((w, i) => w !== reference[i]).length;
        if (differences > 1) return false;
      }
      return differences === 1;
    };
  },
};

export const COPY_INSTRUCTIONS: Record<string, Instruction> = {
  'combination:repeat_prompt': repeatPrompt,
  'copy:repeat_phrase': repeatPhrase,
  'copy:copy': copyExactly,
  'copy:copying_simple': copyExactly,
  'new:copy_span_idx': copySpan,
  'copy:copying_multiple': copyingMultiple,
};
