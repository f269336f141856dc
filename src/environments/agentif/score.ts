// One AgentIF constraint through its steps, as NeMo Gym runs them: judge steps rewrite or gate the text,
// code steps run the dataset's checker on it, and what is left at the end is the verdict.
import { GymError } from '../../errors';
import type { CheckInput, CheckReply, CheckValue } from './checker';
import type { AgentIFConstraint } from './task';
import { judgePrompt, parseYesNo } from './verdict';

/** Passed, failed, not applicable (its gate said NO), or not gradable (a check failed, no verdict). */
export type ConstraintOutcome = boolean | 'skipped' | 'error';

export interface Graders {
  /** The judge's reply text to a prompt, without reasoning blocks; null when it is empty. */
  judge(prompt: string): Promise<string | null>;
  code(source: string, input: CheckInput): Promise<CheckReply>;
}

/** `working or ""` as a code check sees it. */
function checkInput(working: CheckValue): CheckInput {
  if (working.type === 'str') return working.text;
  return working.type === 'truthy' && working.truthy ? true : '';
}

/** `working or ""` as a judge prompt needs it: text. */
function promptText(working: CheckValue, id: unknown): string {
  const input = checkInput(working);
  // NeMo Gym's verify fails here too (str.replace with a non-string).
  if (input === true) throw new GymError('VERIFY_ERROR', `agentif constraint ${String(id)}: a judge step follows a code check that returned neither text nor None`);
  return input;
}

function finalOutcome(working: CheckValue): ConstraintOutcome {
  if (working.type === 'str') return parseYesNo(working.text) ?? 'error';
  if (working.type === 'none') return 'error';
  return working.truthy;
}

export async function scoreConstraint(constraint: AgentIFConstraint, response: string, graders: Graders): Promise<ConstraintOutcome> {
  let working: CheckValue = { type: 'str', text: response };
  for (const step of constraint.evaluation) {
    // A failed code check before a judge step: the judge is not asked.
    if (working.type === 'none' && step.type !== 'code') return 'error';
    if (step.type === 'llm_conditional_check') {
      const gate = parseYesNo(await graders.judge(judgePrompt(step.exec, promptText(working, constraint.id))));
      if (gate === true) continue;
      return gate === false ? 'skipped' : 'error';
    }
    if (step.type === 'llm') {
      const reply = await graders.judge(judgePrompt(step.exec, promptText(working, constraint.id)));
      if (reply === null) return 'error';
      working = { type: 'str', text: reply };
      continue;
    }
    const input = checkInput(working);
    const result: CheckReply = input === '' ? { error: 'Empty response' } : await graders.code(step.exec, input);
    working = 'value' in result ? result.value : { type: 'none' };
  }
  return finalOutcome(working);
}
