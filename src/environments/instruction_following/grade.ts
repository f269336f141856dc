// Grading one answer against a row's instruction list: NeMo Gym's strict verdicts (the reward), and
// IFBench's loose verdicts, where an instruction also passes if it holds once markdown asterisks or
// the first/last line are dropped.
import { pyStrip } from '../../python/str';
import { buildCheck, follows } from './checkers/registry';
import type { VerifierMetadata } from './task';

export interface Grade {
  instructionIds: string[];
  strict: boolean[];
  loose: boolean[];
}

export function gradeAnswer(meta: VerifierMetadata, text: string): Grade {
  const n = Math.min(meta.instruction_id_list.length, meta.kwargs.length);
  const instructionIds = meta.instruction_id_list.slice(0, n);
  const variants = looseVariants(text).filter((v) => pyStrip(v) !== '');
  const strict: boolean[] = [];
  const loose: boolean[] = [];
  instructionIds.forEach((id, i) => {
    const check = buildCheck(id, meta.kwargs[i]);
    strict.push(follows(check, text));
    loose.push(variants.some((v) => follows(check, v)));
  });
  return { instructionIds, strict, loose };
}

function looseVariants(text: string): string[] {
  const lines = text.split('\n');
  const withoutFirst = pyStrip(lines.slice(1).join('\n'));
  const withoutLast = pyStrip(lines.slice(0, -1).join('\n'));
  const withoutBoth = pyStrip(lines.slice(1, -1).join('\n'));
  const variants = [text, withoutFirst, withoutLast, withoutBoth];
  return [...variants, ...variants.map((v) => v.replaceAll('*', ''))];
}

/** binary: all must pass (an empty list passes); fraction: the share that pass (an empty list scores 0). */
export function rewardOf(verdicts: readonly boolean[], mode: VerifierMetadata['grading_mode']): number {
  if ((mode ?? 'binary') === 'binary') return verdicts.every(Boolean) ? 1 : 0;
  return verdicts.length === 0 ? 0 : verdicts.filter(Boolean).length / verdicts.length;
}
