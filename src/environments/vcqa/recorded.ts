// NeMo Gym's recorded vcqa rollouts keep the criteria they were judged on and the judge's replies, but not their
// task rows (its held-out split is private): the rows are rebuilt from them so the rollouts can be re-verified.

const EVIDENCE = '\n\nThe answer must cite the following evidence:\n';

interface JudgedItem {
  criterion: string;
  raw: string | null;
}

function judgedItems(row: Record<string, unknown>): JudgedItem[] | undefined {
  const items = row.judge_per_item;
  if (!Array.isArray(items) || !items.length || 'verifier_metadata' in row) return undefined;
  return items.every((i) => typeof (i as JudgedItem)?.criterion === 'string') ? (items as JudgedItem[]) : undefined;
}

/** A recorded rollout without its row, graded on the must-have criteria it lists. */
export function isRecordedRollout(row: Record<string, unknown>): boolean {
  return judgedItems(row) !== undefined;
}

/**
 * The task row the rollout was graded from, as far as grading needs it: its input, and a rubric whose must-have
 * items word the recorded criteria again (the statement, and the evidence NeMo Gym appended to it).
 */
export function recordedTaskRow(row: Record<string, unknown>) {
  const judge = judgedItems(row)!.map(({ criterion }, i) => {
    const [title, evidence] = criterion.split(EVIDENCE);
    return { id: `recorded-${i + 1}`, title, importance: 'must have', ...(evidence ? { evidence_required: evidence.split('\n').map((line) => line.replace(/^- /, '')) } : {}) };
  });
  return { responses_create_params: row.responses_create_params, verifier_metadata: { dataset_kind: 'fileset', artifact_key: '(not shipped)', rubric: { judge } } };
}

/** The judge's recorded reply per criterion. */
export function recordedReplies(row: Record<string, unknown>): Map<string, string | null> {
  return new Map(judgedItems(row)!.map((i) => [i.criterion, i.raw]));
}

/** The criterion a vcqa judge prompt asks about. */
export function promptCriterion(userPrompt: string): string {
  const start = userPrompt.lastIndexOf('\n\nCRITERION:\n') + '\n\nCRITERION:\n'.length;
  return userPrompt.slice(start, userPrompt.length - '\n\nReply with exactly one word: YES or NO.'.length);
}
