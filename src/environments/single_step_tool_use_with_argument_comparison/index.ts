// NeMo Gym's single_step_tool_use_with_argument_comparison: one model turn in the middle of a recorded
// conversation; its action (message, tool call or parallel calls) is compared with the expert's.
// Tools are never executed: NeMo Gym runs it with a one-call agent (tool_simulation_agent).
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import type { Environment } from '../types';
import { Action, responseAction } from './actions';
import { CATEGORIES, compareAction, type ComparatorConfig } from './compare';

export const ArgumentComparisonTask = TaskRow.extend({ expected_action: Action });
export type ArgumentComparisonTask = z.infer<typeof ArgumentComparisonTask>;

/** NeMo Gym's default server config: the number of calls does not matter, surplus calls are free. */
export const DEFAULT_COMPARATOR: ComparatorConfig = {
  wordCountSimilarityThreshold: 0.1,
  floatTolerance: 1e-6,
  parallelToolCallRewarding: false,
  allowSubset: false,
  allowSuperset: false,
  parallelRewardMode: 'binary_strict',
};

/** NeMo Gym's parallel_tool_calls config: the call count matters, partial sets earn F1 credit. */
export const PARALLEL_COMPARATOR: ComparatorConfig = {
  ...DEFAULT_COMPARATOR,
  parallelToolCallRewarding: true,
  allowSubset: true,
  allowSuperset: true,
  parallelRewardMode: 'f1',
};

export function argumentComparisonEnvironment(name: string, config: ComparatorConfig): Environment<ArgumentComparisonTask, null> {
  return defineEnvironment({
    name,
    description: "One step of a tool-use conversation; reward for matching the expert's message or tool call(s).",
    taskSchema: ArgumentComparisonTask,
    // The model's tool calls are the answer: they are graded, never executed.
    agent: 'non_executing_agent',
    verify(task, response) {
      const { reward, category } = compareAction(task.expected_action, responseAction(response), config);
      return { reward, category: CATEGORIES[category], ...(reward === 1 ? {} : { failure_reason: category.toLowerCase() }) };
    },
  });
}

export const singleStepToolUseWithArgumentComparison = argumentComparisonEnvironment('single_step_tool_use_with_argument_comparison', DEFAULT_COMPARATOR);

export const parallelToolCallsSingleStepToolUseWithArgumentComparison = argumentComparisonEnvironment('parallel_tool_calls_single_step_tool_use_with_argument_comparison', PARALLEL_COMPARATOR);
