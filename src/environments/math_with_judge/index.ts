// NeMo Gym's math_with_judge: math answers graded by a port of HF math-verify (answer extraction,
// LaTeX normalisation, symbolic/numeric equivalence), with an optional LLM judge as the fallback.
import { assistantMessage } from '../example_single_tool_call';
import type { Environment } from '../types';
import { MathWithJudgeConfig } from './config';
import { stripMathDelimiters } from './math/library';
import { MathTask } from './task';
import { verifyMath } from './verify';

export { MathWithJudgeConfig } from './config';
export { libraryCheck } from './math/library';

export function createMathWithJudge(overrides: Partial<MathWithJudgeConfig> = {}): Environment<MathTask, null> {
  const config = MathWithJudgeConfig.parse(overrides);
  return {
    name: 'math_with_judge',
    description: 'Math problems; the boxed (or otherwise final) answer must be equivalent to the gold answer.',
    taskSchema: MathTask,
    reverifyMode: 'stateless',
    configurable: { schema: MathWithJudgeConfig, create: createMathWithJudge },
    seedSession: () => null,
    tools: {},
    verify: (task, response, ctx) => verifyMath(config, task, response, ctx),
    oracle(task, _history, { correct }) {
      const gold = stripMathDelimiters(task.expected_answer);
      // x² + 1 equals x for no real x, so the wrong answer is wrong whatever the gold is.
      return [assistantMessage(`Solving step by step gives the result.\n\n\\boxed{${correct ? gold : `(${gold})^2+1`}}`)];
    },
  };
}

/** With NeMo Gym's shipped configs/math_with_judge.yaml settings (library check only). */
export const mathWithJudge = createMathWithJudge();
