// Grading one rubric criterion: the judge is asked until three replies parse to a 0/1 verdict (at most
// ten calls), and the majority decides; a reply that ran out of output budget doubles the next budget.
import type { ResponseCreateParams, ResponseObject } from '../../schemas/responses';
import { askJudge, judgeMessage } from '../equivalence_llm_judge/judge';
import { JudgeError, type VerifyContext } from '../types';
import { judgeVerdict, type Criterion, type Judgement } from './rubric';

/** configs/finance_agent_v2.yaml's judge settings. */
export const JUDGE = {
  params: { max_output_tokens: 8192, reasoning: { effort: 'high' } } as Partial<ResponseCreateParams>,
  requiredSuccesses: 3,
  maxAttempts: 10,
  maxOutputTokensCap: 32768,
};

/** The visible text of a judge reply: every text part of every message, concatenated. */
export function judgeText(response: ResponseObject): string {
  let text = '';
  for (const item of response.output as { type?: string; content?: unknown }[]) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as { text?: unknown }[]) if (typeof part.text === 'string') text += part.text;
  }
  return text;
}

export function judgePrompt(template: string, question: string, answer: string, criterion: string): string {
  return template.replaceAll('{question}', question).replaceAll('{generated_answer}', answer).replaceAll('{criterion}', criterion);
}

export async function judgeCriterion(ctx: VerifyContext<unknown>, prompt: string, criterion: Criterion): Promise<Judgement> {
  const j: Judgement = {
    ...criterion,
    score: null,
    votes: [],
    votes_for: 0,
    votes_against: 0,
    unanimous: null,
    attempts_used: 0,
    parse_failures: 0,
    api_failures: 0,
    evidence: [],
    reasons: [],
    error: null,
  };
  let escalations = 0;
  let lastError: string | null = null;
  let unreachable = 0;
  while (j.votes.length < JUDGE.requiredSuccesses && j.attempts_used < JUDGE.maxAttempts) {
    j.attempts_used++;
    const maxTokens = Math.min(JUDGE.params.max_output_tokens! * 2 ** escalations, JUDGE.maxOutputTokensCap);
    let response: ResponseObject;
    try {
      response = await askJudge(ctx, { ...JUDGE.params, max_output_tokens: maxTokens, input: [judgeMessage('user', prompt)] });
    } catch (e) {
      if (!(e instanceof JudgeError)) throw e;
      j.api_failures++;
      unreachable++;
      lastError = e.message;
      continue;
    }
    const reply = judgeText(response);
    const { score, payload } = judgeVerdict(reply);
    if (score === null) {
      const reason = (response as { incomplete_details?: { reason?: string } | null }).incomplete_details?.reason;
      lastError = reason ? `judge reply incomplete (incomplete_details.reason=${reason})` : !reply.trim() ? 'judge returned empty output' : 'judge reply had no integer 0/1 score';
      if (reply) j.parse_failures++;
      else j.api_failures++;
      if (reason === 'max_output_tokens' || !reply.trim()) escalations++;
      continue;
    }
    j.votes.push(score);
    j.evidence.push(pyStrOf(payload.extracted_evidence).slice(0, 1000));
    j.reasons.push(pyStrOf(payload.reason).slice(0, 1000));
  }
  j.votes_for = j.votes.filter((v) => v === 1).length;
  j.votes_against = j.votes.length - j.votes_for;
  if (j.votes.length < JUDGE.requiredSuccesses) {
    // Every call failing to reach the judge is an outage, not a verdict: the run routes it to the sidecar.
    if (unreachable === j.attempts_used) throw new JudgeError(lastError!);
    j.error = lastError ?? `only ${j.votes.length}/${JUDGE.requiredSuccesses} successful judge verdicts`;
    return j;
  }
  j.score = j.votes_for * 2 > j.votes.length ? 1 : 0;
  j.unanimous = j.votes_for === 0 || j.votes_against === 0;
  return j;
}

/** `str(payload.get(key, ""))` for the JSON values a judge writes. */
function pyStrOf(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}
