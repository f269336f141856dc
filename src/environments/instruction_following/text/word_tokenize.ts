// NLTK's word_tokenize (Punkt sentences, then NLTK's improved Treebank word tokenizer), which the
// capital-word, unique-word, start/end and composition checkers count tokens with. The regex table
// follows NLTK 3.10's NLTKWordTokenizer, written in Python syntax and compiled with Python semantics.
import { pySplit } from '../../../python/str';
import { pyRegExp } from '../../../python/regex';
import { sentTokenize } from './punkt';

type Rule = [RegExp, string];

const rule = (pattern: string, replacement: string): Rule => [pyRegExp(pattern), replacement];

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 '),
  rule('^"', '``'),
  rule('(``)', ' $1 '),
  rule('([ \\(\\[{<])("|\'{2})', '$1 `` '),
  rule("(?i)(?<!\\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)", '$1 '),
];

const PUNCTUATION: Rule[] = [
  rule('([^\\.])(\\.)([\\]\\)}>"\'»”’ ]*)\\s*$', '$1 $2 $3 '),
  rule('([:,])([^\\d])', ' $1 $2'),
  rule('([:,])$', ' $1 '),
  rule('\\.{2,}', ' $& '),
  rule('[;@#$%&]', ' $& '),
  rule('[\\u2012-\\u2015]', ' $& '),
  rule('([^\\.])(\\.)([\\]\\)}>"\']*)\\s*$', '$1 $2$3 '),
  rule('[?!]', ' $& '),
  rule("([^'])' ", "$1 ' "),
  rule('[*]', ' $& '),
];

const PARENS_BRACKETS = rule('[\\]\\[\\(\\)\\{\\}\\<\\>]', ' $& ');
const DOUBLE_DASHES = rule('--', ' -- ');

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 '),
  rule("''", " '' "),
  rule('"', " '' "),
  rule('\\s+', ' '),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 '),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 '),
];

const CONTRACTIONS: Rule[] = [
  '(?i)\\b(can)(?#X)(not)\\b',
  "(?i)\\b(d)(?#X)('ye)\\b",
  '(?i)\\b(gim)(?#X)(me)\\b',
  '(?i)\\b(gon)(?#X)(na)\\b',
  '(?i)\\b(got)(?#X)(ta)\\b',
  '(?i)\\b(lem)(?#X)(me)\\b',
  "(?i)\\b(more)(?#X)('n)\\b",
  '(?i)\\b(wan)(?#X)(na)(?=\\s)',
  "(?i) ('t)(?#X)(is)\\b",
  "(?i) ('t)(?#X)(was)\\b",
].map((p) => rule(p, ' $1 $2 '));

function applyAll(text: string, rules: readonly Rule[]): string {
  return rules.reduce((t, [re, sub]) => t.replace(re, sub), text);
}

/** NLTKWordTokenizer.tokenize for one sentence. */
export function treebankTokenize(sentence: string): string[] {
  let text = applyAll(sentence, STARTING_QUOTES);
  text = applyAll(text, PUNCTUATION);
  text = applyAll(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = applyAll(` ${text} `, ENDING_QUOTES);
  return pySplit(applyAll(text, CONTRACTIONS));
}

/** nltk.word_tokenize(text). */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokenize);
}
