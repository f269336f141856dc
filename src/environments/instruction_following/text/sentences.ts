// The rule-based sentence splitter IFEval's first-word, last-word, hyphen, keyword-position and
// composition checkers use (not NLTK's): protect periods of titles, initials, acronyms, websites,
// decimals and ellipses, then break after every remaining ".", "?" or "!".
import { pyStrip } from '../../mcqa/python_str';
import { PY_SPACE } from '../python_regex';

const ALPHA = '([A-Za-z])';
const PREFIXES = /(Mr|St|Mrs|Ms|Dr)[.]/g;
const STARTERS = `(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He[${PY_SPACE}]|She[${PY_SPACE}]|It[${PY_SPACE}]|They[${PY_SPACE}]|Their[${PY_SPACE}]|Our[${PY_SPACE}]|We[${PY_SPACE}]|But[${PY_SPACE}]|However[${PY_SPACE}]|That[${PY_SPACE}]|This[${PY_SPACE}]|Wherever)`;
const ACRONYMS = '([A-Z][.][A-Z][.](?:[A-Z][.])?)';
const SUFFIXES = '(Inc|Ltd|Jr|Sr|Co)';

const RULES: [RegExp, string | ((m: string) => string)][] = [
  [PREFIXES, '$1<prd>'],
  [/[.](com|net|org|io|gov|edu|me)/g, '<prd>$1'],
  [/([0-9])[.]([0-9])/g, '$1<prd>$2'],
  [/\.{2,}/g, (m) => '<prd>'.repeat(m.length) + '<stop>'],
];

const RULES_AFTER_PHD: [RegExp, string][] = [
  [new RegExp(`[${PY_SPACE}]${ALPHA}[.] `, 'gu'), ' $1<prd> '],
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
