// NeMo Gym's equivalence_llm_judge: an LLM judge decides whether the model's answer is equivalent to
// the gold answer, with optional swap (positional-bias) and full-generation rescue passes.
import { defineEnvironment } from '../define';
import type { Environment } from '../types';
import { CLASS_DEFAULTS, EquivalenceJudgeConfig } from './config';
import { EquivalenceTask } from './task';
import { verifyEquivalence } from './verify';

export { EquivalenceJudgeConfig, CLASS_DEFAULTS } from './config';

export function createEquivalenceLlmJudge(overrides: Partial<EquivalenceJudgeConfig> = {}): Environment<EquivalenceTask, null> {
  const config = EquivalenceJudgeConfig.parse(overrides);
  return defineEnvironment({
    name: 'equivalence_llm_judge',
    description: 'An LLM judge compares the final answer with the gold answer; reward 1.0 when equivalent.',
    taskSchema: EquivalenceTask,
    configurable: { schema: EquivalenceJudgeConfig, create: createEquivalenceLlmJudge },
    requiresJudge: true,
    verify: (task, response, ctx) => verifyEquivalence(config, task, response, ctx),
  });
}

/** With NeMo Gym's shipped configs/equivalence_llm_judge.yaml settings. */
export const equivalenceLlmJudge = createEquivalenceLlmJudge();

/** The settings NeMo Gym's OpenQA rollouts were recorded with: class defaults plus the swap check. */
export const OPENQA_CONFIG: Partial<EquivalenceJudgeConfig> = { ...CLASS_DEFAULTS, check_twice_swap: true };
