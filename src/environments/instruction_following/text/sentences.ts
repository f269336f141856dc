// The rule-based sentence splitter IFEval's first-word, last-word, hyphen, keyword-position and
// composition checkers use (not NLTK's): protect periods of titles, initials, acronyms, websites,
// decimals and ellipses, then break after every remaining ".", "?" or "!".
import { PY_WHITESPACE_CLASS, pyStrip } from '../../../python/str';

const ALPHA = '([A-Za-z])';
const PREFIXES = /(Mr|St|Mrs|Ms|Dr)[.]/g;
const STARTERS = `(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He[${PY_WHITESPACE_CLASS}]|She[${PY_WHITESPACE_CLASS}]|It[${PY_WHITESPACE_CLASS}]|They[${PY_WHITESPACE_CLASS}]|Their[${PY_WHITESPACE_CLASS}]|Our[${PY_WHITESPACE_CLASS}]|We[${PY_WHITESPACE_CLASS}]|But[${PY_WHITESPACE_CLASS}]|However[${PY_WHITESPACE_CLASS}]|That[${PY_WHITESPACE_CLASS}]|This[${PY_WHITESPACE_CLASS}]|Wherever)`;
const ACRONYMS = '([A-Z][.][A-Z][.](?:[A-Z][.])?)';
const SUFFIXES = '(Inc|Ltd|Jr|Sr|Co)';

const RULES: [RegExp, string | ((m: string) => string)][] = [
  [PREFIXES, '$1<prd>'],
  [/[.](com|net|org|io|gov|edu|me)/g, '<prd>$1'],
  [/([0-9])[.]([0-9])/g, '$1<prd>$2'],
  [/\.{2,}/g, (m) => '<prd>'.repeat(m.length) + '<stop>'],
];

const RULES_AFTER_PHD: [RegExp, string][] = [
  [new RegExp(`[${PY_WHITESPACE_CLASS}]${ALPHA}[.] `, 'gu'), ' $1<prd> '],
  [new RegExp(`${ACRONYMS} ${STARTERS}`, 'gu'), '$1<stop> $2'],
  [new RegExp(`${ALPHA}[.]${ALPHA}[.]${ALPHA}[.]`, 'g'), '$1<prd>$2<prd>$3<prd>'],
  [new RegExp(`${ALPHA}[.]${ALPHA}[.]`, 'g'), '$1<prd>$2<prd>'],
  [new RegExp(` ${SUFFIXES}[.] ${STARTERS}`, 'gu'), ' $1<stop> $2'],
  [new RegExp(` ${SUFFIXES}[.]`, 'g'), ' $1<prd>'],
  [new RegExp(` ${ALPHA}[.]`, 'g'), ' $1<prd>'],
];

export function splitIntoSentences(input: string): string[] {
  let text = ` ${input}  `.replaceAll('\n', ' ');
  for (const [re, sub] of RULES) text = text.replace(re, sub as string);
  if (text.includes('Ph.D')) text = text.replaceAll('Ph.D.', 'Ph<prd>D<prd>');
  for (const [re, sub] of RULES_AFTER_PHD) text = text.replace(re, sub);
  text = text.replaceAll('.\u201d', '\u201d.').replaceAll('."', '".').replaceAll('!"', '"!').replaceAll('?"', '"?');
  text = text.replaceAll('.', '.<stop>').replaceAll('?', '?<stop>').replaceAll('!', '!<stop>').replaceAll('<prd>', '.');
  const sentences = text.split('<stop>').map((s) => pyStrip(s));
  if (sentences.length > 0 && sentences.at(-1) === '') sentences.pop();
  return sentences;
}
