// The mock policy's player for litmus_agent: the expected answer (or a wrong one) written in the row's
// answer format, so the format's regex finds it.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { LitmusTask } from '.';

// How each format wraps an answer; formats not listed here are read by the fmt_00 wrapping's default.
const WRAP: Readonly<Record<string, (a: string) => string>> = {
  fmt_00: (a) => `((${a}))`,
  fmt_01: (a) => `(Answer: ${a})`,
  fmt_02: (a) => `Final answer: (${a})`,
  fmt_03: (a) => `Answer is [${a}]`,
  fmt_04: (a) => `[Answer: ${a}]`,
  fmt_05: (a) => `[[${a}]]`,
  fmt_06: (a) => `Correct Answer: [${a}]`,
  fmt_07: (a) => `\\boxed{${a}}`,
  fmt_08: (a) => `\\boxed{${a}}`,
  fmt_09: (a) => `{{${a}}}`,
  fmt_10: (a) => `Answer Value: {${a}}`,
  fmt_11: (a) => `<<${a}>>`,
  fmt_12: (a) => `<<${a}>>`,
  fmt_13: (a) => `<${a}>`,
  fmt_14: (a) => `<Answer: ${a}>`,
  fmt_15: (a) => `<final_answer>${a}</final_answer>`,
  fmt_16: (a) => `Final Answer: ||${a}||`,
  fmt_17: (a) => `The answer is: |${a}|`,
  fmt_18: (a) => `**Answer: ${a}**`,
  fmt_19: (a) => `**Final answer is: ${a}**`,
  fmt_20: (a) => `Answer: *${a}*`,
  fmt_21: (a) => `## Answer: ${a} ##`,
  fmt_22: (a) => `ANSWER IS ${a}`,
  fmt_23: (a) => `Response: ${a}`,
  fmt_24: (a) => `Final Answer -> ${a}`,
  fmt_25: (a) => `Final value is: ${a}`,
  fmt_26: (a) => `Correct Answer >> ${a}`,
  fmt_27: (a) => `Answer Value: ${a}`,
  fmt_28: (a) => `Final Answer = ${a}`,
  fmt_29: (a) => `Correct answer is ${a}`,
  fmt_30: (a) => `Final Answer: ${a}`,
};

function wrongAnswer(task: LitmusTask): string {
  const gold = String(task.expected_answer).trim().toLowerCase();
  if (task.answer_type === 'bool' || task.property_type === 'bool' || task.property_type === 'presence') return ['1', 'true', 'yes', 'present'].includes(gold) ? 'no' : 'yes';
  const n = Number(gold);
  if (gold !== '' && Number.isFinite(n) && task.answer_type !== 'string') return String(n + 1000);
  return 'unknown';
}

export const litmusAgentOracle: Oracle<LitmusTask> = (task, _history, { correct }) => {
  const answer = correct ? String(task.expected_answer) : wrongAnswer(task);
  const format = task.answer_format || (task.use_box_format ? 'fmt_07' : 'fmt_00');
  // A row with its own regex is answered in plain text: the oracle cannot invert an arbitrary pattern.
  const wrapped = task.output_regex ? answer : WRAP[format]!(answer);
  return [assistantMessage(`I worked it out from the structure.\n${wrapped}`)];
};
