// The mock policy's player for code_gen: a program that looks the answers up (which still exercises
// the real test run), or one that does nothing.
import type { z } from 'zod';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { CodeGenTask, UnitTestsSchema } from '.';

export const codeGenOracle: Oracle<CodeGenTask> = (task, _history, { correct }) => {
  const program = correct ? answerKey(task.verifier_metadata.unit_tests) : 'pass';
  return [assistantMessage(`\`\`\`python\n${program}\n\`\`\``)];
};

/**
 * A program that passes the task's tests by looking the answers up: the mock policy's "correct" answer,
 * which still exercises the real test run. JSON string literals are valid Python literals.
 */
export function answerKey(tests: z.infer<typeof UnitTestsSchema>): string {
  if (tests.fn_name) {
    return [
      'import json',
      'class Solution:',
      '    calls = 0',
      `    def ${tests.fn_name}(self, *args):`,
      `        answers = ${JSON.stringify(tests.outputs)}`,
      '        Solution.calls += 1',
      '        return json.loads(answers[Solution.calls - 1])',
    ].join('\n');
  }
  const answers = Object.fromEntries(tests.inputs.map((input, i) => [input, tests.outputs[i] ?? '']));
  return ['import sys', `answers = ${JSON.stringify(answers)}`, "print(answers.get(sys.stdin.read(), ''), end='')"].join('\n');
}
