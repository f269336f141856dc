// Talking to a judge model the way NeMo Gym's judge-graded verifiers do: easy-input messages in, the
// last output item's last content part out, and "[[A=B]]"-style verdict labels found in that text.
import type { MessageItem, ResponseCreateParams, ResponseObject } from '../../schemas/responses';
import { JudgeError, type VerifyContext } from '../types';

/** NeMo Gym's easy input message, as it is dumped into recorded judge requests. */
export function judgeMessage(role: 'system' | 'user', content: string): MessageItem {
  return { type: 'message', role, content };
}

/** One judge call; any failure to get a reply becomes a JudgeError so the run routes it to the sidecar. */
export async function askJudge(ctx: VerifyContext<unknown>, params: ResponseCreateParams): Promise<ResponseObject> {
  if (!ctx.judge) throw new JudgeError('this environment grades with a judge model, but the run has none configured');
  try {
    return await ctx.judge(params);
  } catch (err) {
    if (err instanceof JudgeError) throw err;
    throw new JudgeError(`judge call failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  }
}

/**
 * The text NeMo Gym reads a verdict from: the last content part of the last output item, which must
 * be a message. `outputTextOnly` also demands that part be output_text (math_with_judge does).
 */
export function lastJudgeText(response: ResponseObject, options: { outputTextOnly?: boolean } = {}): string | undefined {
  const last = response.output.at(-1) as { type?: string; content?: unknown } | undefined;
  if (!last || last.type !== 'message' || !Array.isArray(last.content)) return undefined;
  const part = last.content.at(-1) as { type?: string; text?: unknown } | undefined;
  if (!part || (options.outputTextOnly && part.type !== 'output_text')) return undefined;
  return typeof part.text === 'string' ? part.text : undefined;
}

/** Whichever label occurs first in the text; null when neither does. */
export function firstVerdictLabel(text: string | undefined, equalLabel: string, notEqualLabel: string): string | null {
  if (text === undefined) return null;
  const eq = text.indexOf(equalLabel);
  const neq = text.indexOf(notEqualLabel);
  if (eq < 0 && neq < 0) return null;
  if (eq >= 0 && (neq < 0 || eq < neq)) return equalLabel;
  return notEqualLabel;
}

/**
 * The verdict as NeMo Gym 0.7.0's equivalence judge reads it: the labels found left to right without overlap
 * (where both start at one place, the longer), and the last of them; null when there is none.
 */
export function lastVerdictLabel(text: string | undefined, equalLabel: string, notEqualLabel: string): string | null {
  if (text === undefined) return null;
  let last: string | null = null;
  for (let i = 0; i < text.length;) {
    const eq = equalLabel ? text.indexOf(equalLabel, i) : -1;
    const neq = notEqualLabel ? text.indexOf(notEqualLabel, i) : -1;
    if (eq < 0 && neq < 0) break;
    const [label, at] = eq === neq ? [equalLabel.length > notEqualLabel.length ? equalLabel : notEqualLabel, eq] : neq < 0 || (eq >= 0 && eq < neq) ? [equalLabel, eq] : [notEqualLabel, neq];
    last = label;
    i = at + label.length;
  }
  return last;
}
