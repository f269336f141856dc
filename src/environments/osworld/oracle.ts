// The mock policy's player for osworld. It reads the accessibility tree the desktop shows (require_a11y_tree) for
// the element named like the task's expected value, clicks its centre, then says DONE; an infeasible task it
// declares FAIL. A wrong rollout says DONE at once without acting (or DONE for an infeasible one).
import type { ConversationItem, MessageItem } from '../../schemas/responses';
import type { TaskRow } from '../../schemas/task';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { OSWorldTask } from './evaluate';

type Task = TaskRow & { verifier_metadata: { osworld_task: OSWorldTask } };

function latestObservationText(history: readonly ConversationItem[]): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i] as MessageItem;
    if (item.role !== 'user') continue;
    return typeof item.content === 'string' ? item.content : item.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
  }
  return '';
}

/** The strings the task's rule says a right answer is (its `expected` rules). */
function expectedValues(task: OSWorldTask): string[] {
  const expected = Array.isArray(task.evaluator.expected) ? task.evaluator.expected[0] : task.evaluator.expected;
  const rules = (expected as { rules?: { expected?: unknown } } | null | undefined)?.rules?.expected;
  return (Array.isArray(rules) ? rules : [rules]).filter((v): v is string => typeof v === 'string');
}

/** The centre of the first tree element whose name holds one of the values. */
function target(tree: string, values: string[]): [number, number] | null {
  for (const m of tree.matchAll(/<[\w-]+\s([^>]*)>/g)) {
    const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1]!)?.[1];
    const label = attr('name') ?? '';
    if (!values.some((v) => label.includes(v))) continue;
    const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((a) => Number(attr(a) ?? NaN));
    if ([x, y, w, h].every(Number.isFinite)) return [Math.round(x! + w! / 2), Math.round(y! + h! / 2)];
  }
  return null;
}

export const osworldOracle: Oracle<Task> = (task, history, { correct }) => {
  const osworld = task.verifier_metadata.osworld_task;
  if (osworld.evaluator.func === 'infeasible') return [assistantMessage(correct ? 'This cannot be done here.\n```FAIL```' : 'Done.\n```DONE```')];
  const acted = history.some((item) => (item as MessageItem).role === 'assistant');
  if (acted || !correct) return [assistantMessage('The task is complete.\n\n```DONE```')];
  const point = target(latestObservationText(history), expectedValues(osworld));
  if (!point) return [assistantMessage('I cannot find what to click.\n```DONE```')];
  return [assistantMessage(`I will click it.\n\n\`\`\`python\nimport pyautogui\npyautogui.click(${point[0]}, ${point[1]})\n\`\`\``)];
};
