// chrF as sacrebleu 2.x computes it with its defaults (character 6-grams, no word n-grams, β = 2,
// whitespace dropped, no eps smoothing), so Gymflow's translation rewards equal NeMo Gym's to the last bit.
import { pySplit } from '../../python/str';

const CHAR_ORDER = 6;
const BETA = 2;

/** Character n-gram counts of orders 1..CHAR_ORDER, over code points, whitespace removed. */
function charNgrams(text: string): Map<string, number>[] {
  const chars = [...pySplit(text).join('')];
  const counters: Map<string, number>[] = [];
  for (let n = 1; n <= CHAR_ORDER; n++) {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= chars.length; i++) {
      const gram = chars.slice(i, i + n).join('');
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    }
    counters.push(counts);
  }
  return counters;
}

/** [hyp, ref, match] per order, flattened; a hypothesis n-gram counts only when the reference has n-grams of that order. */
export function chrfStatistics(hypothesis: string, reference: string): number[] {
  const hyp = charNgrams(hypothesis);
  const ref = charNgrams(reference);
  const stats: number[] = [];
  hyp.forEach((h, i) => {
    const r = ref[i]!;
    let hypCount = 0;
    let match = 0;
    for (const [gram, count] of h) {
      hypCount += count;
      match += Math.min(count, r.get(gram) ?? 0);
    }
    let refCount = 0;
    for (const count of r.values()) refCount += count;
    stats.push(r.size ? hypCount : 0, refCount, match);
  });
  return stats;
}

/** The chrF score (0–100) of summed statistics: F-β of the precision and recall averaged over the orders both sides have. */
export function chrfFromStatistics(stats: readonly number[]): number {
  const eps = 1e-16;
  const factor = BETA ** 2;
  let avgPrec = 0;
  let avgRec = 0;
  let effectiveOrder = 0;
  for (let i = 0; i < stats.length / 3; i++) {
    const [nHyp, nRef, nMatch] = [stats[3 * i]!, stats[3 * i + 1]!, stats[3 * i + 2]!];
    const prec = nHyp > 0 ? nMatch / nHyp : eps;
    const rec = nRef > 0 ? nMatch / nRef : eps;
    if (nHyp > 0 && nRef > 0) {
      avgPrec += prec;
      avgRec += rec;
      effectiveOrder++;
    }
  }
  if (effectiveOrder === 0) return 0;
  avgPrec /= effectiveOrder;
  avgRec /= effectiveOrder;
  if (!(avgPrec + avgRec)) return 0;
  // The same operations in the same order as sacrebleu, so the floats agree exactly.
  const score = ((1 + factor) * avgPrec * avgRec) / (factor * avgPrec + avgRec);
  return 100 * score;
}

/** sacrebleu's `sentence_chrf(hypothesis, [reference]).score`. */
export function sentenceChrf(hypothesis: string, reference: string): number {
  return chrfFromStatistics(chrfStatistics(hypothesis, reference));
}
