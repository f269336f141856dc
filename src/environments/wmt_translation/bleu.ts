// BLEU as sacrebleu 2.x computes it for one sentence (`sentence_bleu`: the 13a tokenizer, 4-grams,
// exponential smoothing, effective order). spBLEU's FLORES-200 SentencePiece model is a download, so not here.
import { pyRstrip, pySplit } from '../../python/str';

const MAX_ORDER = 4;

// mteval-v13a's tokenization: punctuation and symbols split off, periods and commas except between digits,
// a dash after a digit.
const TOKENIZE_13A: [RegExp, string][] = [
  [/([{-~[-` -&(-+:-@/])/gu, ' $1 '],
  [/([^0-9])([.,])/gu, '$1 $2 '],
  [/([.,])([^0-9])/gu, ' $1 $2'],
  [/([0-9])(-)/gu, '$1 $2 '],
];

export function tokenize13a(line: string): string {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  s = ` ${s} `;
  for (const [re, replacement] of TOKENIZE_13A) s = s.replace(re, replacement);
  return pySplit(s).join(' ');
}

function wordNgrams(tokens: readonly string[]): Map<string, { order: number; count: number }> {
  const grams = new Map<string, { order: number; count: number }>();
  for (let n = 1; n <= MAX_ORDER; n++) {
    for (let i = 0; i + n <= tokens.length; i++) {
      // Tokens never contain whitespace, so a space joins them unambiguously.
      const key = tokens.slice(i, i + n).join(' ');
      const entry = grams.get(key);
      if (entry) entry.count++;
      else grams.set(key, { order: n, count: 1 });
    }
  }
  return grams;
}

/** Python's floored log: log(0) is a very low number instead of an error. */
const flooredLog = (x: number) => (x === 0 ? -9999999999 : Math.log(x));

/** sacrebleu's `sentence_bleu(hypothesis, [reference]).score` (0–100). */
export function sentenceBleu(hypothesis: string, reference: string): number {
  const hyp = pySplit(tokenize13a(pyRstrip(hypothesis)));
  const ref = pySplit(tokenize13a(pyRstrip(reference)));
  const refGrams = wordNgrams(ref);
  const correct = new Array<number>(MAX_ORDER).fill(0);
  const total = new Array<number>(MAX_ORDER).fill(0);
  for (const [gram, { order, count }] of wordNgrams(hyp)) {
    total[order - 1]! += count;
    correct[order - 1]! += Math.min(count, refGrams.get(gram)?.count ?? 0);
  }
  const sysLen = hyp.length;
  const refLen = ref.length;
  if (!correct.some((c) => c > 0)) return 0;
  const bp = sysLen < refLen ? (sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0) : 1;
  const precisions = new Array<number>(MAX_ORDER).fill(0);
  let smooth = 1;
  let effectiveOrder = MAX_ORDER;
  for (let n = 1; n <= MAX_ORDER; n++) {
    if (total[n - 1] === 0) break;
    effectiveOrder = n;
    if (correct[n - 1] === 0) {
      smooth *= 2;
      precisions[n - 1] = 100 / (smooth * total[n - 1]!);
    } else {
      precisions[n - 1] = (100 * correct[n - 1]!) / total[n - 1]!;
    }
  }
  let logSum = 0;
  for (const p of precisions.slice(0, effectiveOrder)) logSum += flooredLog(p);
  return bp * Math.exp(logSum / effectiveOrder);
}
