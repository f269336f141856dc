// NeMo Gym's library check for math_with_judge: math-verify's math_metric with the gold wrapped as
// \boxed{gold} and read as LaTeX, the prediction read as a plain expression or LaTeX.
import { pyStrip } from '../../../python/str';
import { exprEqual } from './compare';
import { extractAnswer, extractionStrings, sameAnswerText, type Extraction } from './extract';
import { GOLD_PATTERNS, PRED_PATTERNS } from './patterns';
import { sympyStr } from './print';

export interface LibraryResult {
  reward: number;
  /** The prediction as math-verify prints it (SymPy style), or null when nothing was extracted. */
  extractedAnswer: string | null;
}

/** Drops one outer \(…\) and then one outer $…$, which would stop \boxed{…} from parsing. */
export function stripMathDelimiters(answer: string): string {
  let s = pyStrip(answer);
  if (s.startsWith('\\(') && s.endsWith('\\)')) s = pyStrip(s.slice(2, -2));
  if (s.startsWith('$') && s.endsWith('$') && s.length > 1) s = pyStrip(s.slice(1, -1));
  return s;
}

/** math-verify's verify over both extractions: parsed values by value, fallbacks as strings. */
function matches(gold: Extraction, pred: Extraction): boolean {
  if (gold.parsed && pred.parsed && exprEqual(gold.parsed, pred.parsed)) return true;
  return gold.fallback !== undefined && pred.fallback !== undefined && sameAnswerText(gold.fallback, pred.fallback);
}

export function libraryCheck(expectedAnswer: string, generated: string): LibraryResult {
  const gold = extractAnswer(`\\boxed{${stripMathDelimiters(expectedAnswer)}}`, GOLD_PATTERNS);
  const pred = extractAnswer(generated, PRED_PATTERNS);
  const goldStrings = extractionStrings(gold, sympyStr);
  const predStrings = extractionStrings(pred, sympyStr);
  // No gold or no prediction makes math-verify raise, which NeMo Gym scores (0.0, None).
  if (goldStrings.length === 0 || predStrings.length === 0) return { reward: 0.0, extractedAnswer: null };
  const reward = matches(gold, pred) ? 1.0 : 0.0;
  const shared = predStrings.find((p) => goldStrings.some((g) => sameAnswerText(g, p)));
  return { reward, extractedAnswer: shared ?? predStrings[0]! };
}
