// The osworld agent's action protocol (its gym_pyautogui runner): a model reply becomes a list of actions, each
// a block of pyautogui Python run on the desktop or one of the control words WAIT, DONE, FAIL. Pure.
import { PyRegex } from '../../python/regex';
import { pyStrip } from '../../python/str';

/** The control words: WAIT sleeps, DONE and FAIL end the episode (FAIL declares the task infeasible). */
export const CONTROL_WORDS = ['WAIT', 'DONE', 'FAIL'] as const;
export type ControlWord = (typeof CONTROL_WORDS)[number];

export function isControlWord(action: string): action is ControlWord {
  return (CONTROL_WORDS as readonly string[]).includes(action);
}

// Python's re with DOTALL and IGNORECASE, so case folds as NeMo Gym's parser folds it.
const THINKING = new PyRegex('<think(?:ing)?>.*?</think(?:ing)?>', 'si');
// A fence with an optional language word (and the space after it) before the body; bodies are taken lazily.
const FENCE = new PyRegex('```(?:\\w+\\s+)?(.*?)```', 's');

/** The reply without the <think>/<thinking> blocks reasoning models emit, stripped. */
export function stripThinking(text: string): string {
  return pyStrip(THINKING.sub(text ?? '', () => ''));
}

/**
 * The actions of one reply, in order. A reply that is only a control word is that word; otherwise every fenced
 * block is an action, a block whose last line is a control word being split into its code and the word. An
 * empty list is a reply with nothing to run (the step runs nothing and the model is asked again).
 */
export function parseActions(reply: string): string[] {
  if (!reply) return [];
  const text = stripThinking(reply);
  const whole = pyStrip(text);
  if (isControlWord(whole)) return [whole];
  const actions: string[] = [];
  for (const body of FENCE.findall(text) as string[]) {
    const block = pyStrip(body);
    if (!block) continue;
    if (isControlWord(block)) {
      actions.push(block);
      continue;
    }
    const lines = block.split('\n');
    const last = pyStrip(lines[lines.length - 1]!);
    if (lines.length > 1 && isControlWord(last)) actions.push(lines.slice(0, -1).join('\n'), last);
    else actions.push(block);
  }
  return actions;
}
