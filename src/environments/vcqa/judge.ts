// NeMo Gym vcqa's grading: each must-have rubric item judged alone by a judge model asked for one word, YES
// or NO; the reward is the share of must-have items passed.
import { pySplitlines, pyStrip, pyRstrip } from '../../python/str';
import { pyRepr, pyStr, truthy } from '../../python/values';
import type { ResponseCreateParams } from '../../schemas/responses';
import { askJudge, judgeMessage } from '../equivalence_llm_judge/judge';
import { judgeText } from '../finance_agent_v2/judge';
import type { VerifyContext } from '../types';

export const JUDGE_SYSTEM_PROMPT =
  "You grade whether a model's answer to a code-investigation problem satisfies a single must-have criterion. " +
  "Read the problem, the model's answer, and the criterion. Reply with exactly one word on its own line: YES if the answer " +
  'satisfies the criterion, NO otherwise. Do not add any explanation.';

/** NeMo Gym's judge_max_completion_tokens (Chat Completions' max_completion_tokens, the Responses max_output_tokens). */
export const JUDGE_MAX_OUTPUT_TOKENS = 2048;

const MUST_HAVE = new Set(['must_have', 'must-have', 'must have', 'must']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Python's `str(x or "")` for the JSON values a rubric holds. */
function text(v: unknown): string {
  return v !== undefined && truthy(v) ? pyStr(v) : '';
}

/**
 * The criteria of a rubric's must-have `judge` items, as NeMo Gym words them: `title` (or a legacy `description`),
 * with the evidence the answer must cite appended. Items that are not must-have or have no statement are dropped.
 */
export function mustHaveCriteria(rubric: unknown): string[] {
  const items = isRecord(rubric) ? rubric.judge : undefined;
  if (!Array.isArray(items)) return [];
  return items.flatMap((raw) => {
    if (!isRecord(raw)) return [];
    const importance = pyStrip(text(raw.importance) || text(raw.category)).toLowerCase();
    if (!MUST_HAVE.has(importance)) return [];
    let statement = pyStrip(text(raw.title) || text(raw.description));
    if (!statement) return [];
    const evidence = raw.evidence_required;
    if (Array.isArray(evidence) && evidence.length) {
      const lines = evidence.filter((e): e is string => typeof e === 'string').map((e) => `- ${e}`);
      statement = `${statement}\n\nThe answer must cite the following evidence:\n${lines.join('\n')}`;
    }
    return [statement];
  });
}

export function judgeUserPrompt(problem: string, answer: string, criterion: string): string {
  return `PROBLEM:\n${problem}\n\nMODEL ANSWER:\n${answer}\n\nCRITERION:\n${criterion}\n\nReply with exactly one word: YES or NO.`;
}

/**
 * NeMo Gym's parse_yes_no: the first line, stripped, upper-cased, trailing dots removed, must be YES or NO.
 * A reply of only whitespace has no first line: NeMo Gym raises there (IndexError), which fails its whole
 * rollout; this says so with `undefined`.
 */
export function parseYesNo(reply: string | null): boolean | null | undefined {
  if (!reply) return null;
  const lines = pySplitlines(pyStrip(reply));
  if (!lines.length) return undefined;
  const first = pyRstrip(pyStrip(lines[0]!).toUpperCase(), '.');
  return first === 'YES' ? true : first === 'NO' ? false : null;
}

export interface ItemVerdict {
  criterion: string;
  passed: boolean;
  error: string | null;
  raw: string | null;
}

/** NeMo Gym's judge fields; the counts and items are null when grading raised. */
export interface Grade {
  must_pass: number | null;
  must_total: number | null;
  reward: number;
  per_item: ItemVerdict[] | null;
  error: string | null;
}

export function judgeRequest(problem: string, answer: string, criterion: string): ResponseCreateParams {
  return {
    input: [judgeMessage('system', JUDGE_SYSTEM_PROMPT), judgeMessage('user', judgeUserPrompt(problem, answer, criterion))],
    max_output_tokens: JUDGE_MAX_OUTPUT_TOKENS,
  };
}

/** A judge reply with no message text is NeMo Gym's `content: null`. */
function replyText(response: Parameters<typeof judgeText>[0]): string | null {
  const hasMessage = (response.output as { type?: string }[]).some((item) => item.type === 'message');
  return hasMessage ? judgeText(response) : null;
}

/**
 * Grades the answer against the rubric's must-have items, one judge call each. A call that fails is a
 * JudgeError (the rollout goes to the sidecar); a reply that is not YES/NO fails its item, as in NeMo Gym.
 */
export async function grade(ctx: VerifyContext<unknown>, rubric: unknown, problem: string, answer: string): Promise<Grade> {
  const criteria = mustHaveCriteria(rubric);
  if (!criteria.length) return { must_pass: 0, must_total: 0, reward: 0, per_item: [], error: 'no must_have rubric items' };
  if (!pyStrip(answer)) {
    const per_item = criteria.map((criterion) => ({ criterion, passed: false, error: 'empty answer', raw: null }));
    return { must_pass: 0, must_total: criteria.length, reward: 0, per_item, error: 'empty model answer' };
  }
  const per_item: ItemVerdict[] = [];
  for (const criterion of criteria) {
    const raw = replyText(await askJudge(ctx, judgeRequest(problem, answer, criterion)));
    const passed = parseYesNo(raw);
    if (passed === undefined) {
      // NeMo Gym's rollout ends here with reward 0 and this error, and no per-item verdicts.
      return { must_pass: null, must_total: null, reward: 0, per_item: null, error: 'IndexError: list index out of range' };
    }
    per_item.push(passed === null ? { criterion, passed: false, error: `judge reply not YES/NO: ${pyRepr(raw)}`, raw } : { criterion, passed, error: null, raw });
  }
  const must_pass = per_item.filter((v) => v.passed).length;
  return { must_pass, must_total: per_item.length, reward: must_pass / per_item.length, per_item, error: null };
}
