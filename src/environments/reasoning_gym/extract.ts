// The answer NeMo Gym's reasoning_gym server scores: the last <answer>…</answer>, else the first
// \boxed{…}, else the whole text, read from every message of the episode joined with "".
import { pyStrip } from '../../python/str';

const ANSWER_TAG = /<answer>\s?([\s\S]*?)\s?<\/answer>/g;
const BOXED = /\\boxed\{([^}]+)\}/;

export function extractAnswer(fullText: string): string {
  const tagged = [...fullText.matchAll(ANSWER_TAG)].at(-1);
  if (tagged) return pyStrip(tagged[1]!);
  const boxed = BOXED.exec(fullText);
  if (boxed) return pyStrip(boxed[1]!);
  return pyStrip(fullText);
}
