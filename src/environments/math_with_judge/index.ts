// NeMo Gym's math_with_judge: math answers graded by a port of HF math-verify (answer extraction,
// LaTeX normalisation, symbolic/numeric equivalence), with an optional LLM judge as the fallback.
import { defineEnvironment } from '../define';
import type { Environment } from '../types';
import { MathWithJudgeConfig } from './config';
import { MathTask } from './task';
import { verifyMath } from './verify';

export { MathWithJudgeConfig } from './config';
export { libraryCheck } from './math/library';

export function createMathWithJudge(overrides: Partial<MathWithJudgeConfig> = {}): Environment<MathTask, null> {
  const config = MathWithJudgeConfig.parse(overrides);
  return defineEnvironment({
    name: 'math_with_judge',
    description: 'Math problems; the boxed (or otherwise final) answer must be equivalent to the gold answer.',
    taskSchema: MathTask,
    configurable: { schema: MathWithJudgeConfig, create: createMathWithJudge },
    verify: (task, response, ctx) => verifyMath(config, task, response, ctx),
  });
}

/** With NeMo Gym's shipped configs/math_with_judge.yaml settings (library check only). */
export const mathWithJudge = createMathWithJudge();
