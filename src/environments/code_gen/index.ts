// NeMo Gym's competitive-coding environment: the last fenced code block of the answer is run against
// the task's unit tests in a jailed python3 process; reward 1.0 when every test passes.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { outputText } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import type { VerifyResult } from '../../schemas/verify';
import { defineEnvironment } from '../define';
import type { Environment } from '../types';
import { pyStrip } from '../../python/str';
import { extractCode, hasReasoningFormatViolation } from './extract';
import { createSandbox, type SandboxOptions } from './sandbox';
import { createLogger } from '../../util/logger';

export const UnitTestsSchema = z.looseObject({
  inputs: z.array(z.string()),
  outputs: z.array(z.string()),
  fn_name: z.string().nullish(),
});

export const CodeGenTask = TaskRow.extend({
  verifier_metadata: z.looseObject({
    unit_tests: UnitTestsSchema,
    difficulty: z.string().nullish(),
  }),
  hash_id: z.string().optional(),
  dataset: z.string().optional(),
  source: z.string().optional(),
});
export type CodeGenTask = z.infer<typeof CodeGenTask>;

export interface CodeGenOptions extends SandboxOptions {
  /** Reward when think tags leak into the answer (NeMo Gym's reasoning_format_penalty). */
  reasoningFormatPenalty: number;
}

/** NeMo Gym's config (unit_test_timeout_secs 10, 4 GB), with two test processes for a 2-core machine. */
export const DEFAULT_CODE_GEN_OPTIONS: CodeGenOptions = {
  // The distribution's interpreter starts in a tenth of the time of a version-manager shim on PATH.
  python: existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
  timeoutSecs: 10,
  memoryBytes: 4 * 1024 ** 3,
  concurrency: 2,
  isolation: 'bwrap',
  reasoningFormatPenalty: 0,
};

/** The settings a run may give, under NeMo Gym's config key names. */
export const CodeGenSettings = z.object({
  unit_test_timeout_secs: z.number().int().min(1).optional(),
  unit_test_memory_limit_mb: z.number().int().min(64).optional(),
  reasoning_format_penalty: z.number().optional(),
  concurrency: z.number().int().min(1).optional(),
  /** Runs the model's code without a jail, for machines without bubblewrap: it can then read keys and files. */
  unsafe_no_isolation: z.boolean().optional(),
});

function fromSettings(s: z.infer<typeof CodeGenSettings>): Partial<CodeGenOptions> {
  return {
    ...(s.unit_test_timeout_secs !== undefined && { timeoutSecs: s.unit_test_timeout_secs }),
    ...(s.unit_test_memory_limit_mb !== undefined && { memoryBytes: s.unit_test_memory_limit_mb * 1024 ** 2 }),
    ...(s.reasoning_format_penalty !== undefined && { reasoningFormatPenalty: s.reasoning_format_penalty }),
    ...(s.concurrency !== undefined && { concurrency: s.concurrency }),
    ...(s.unsafe_no_isolation !== undefined && { isolation: s.unsafe_no_isolation ? 'none' : 'bwrap' }),
  };
}

export function createCodeGen(overrides: Partial<CodeGenOptions> = {}): Environment<CodeGenTask, null> {
  const options = { ...DEFAULT_CODE_GEN_OPTIONS, ...overrides };
  if (options.isolation === 'none') {
    createLogger('code_gen').warn(
      'UNSAFE: code_gen runs model-written code WITHOUT isolation (unsafe_no_isolation=true): it can read this ' +
        "machine's files and the worker's API keys, reach the network, and leave processes behind. Install Debian's " +
        'bubblewrap package and drop the setting.',
    );
  }
  const runTests = createSandbox(options);
  return defineEnvironment({
    name: 'code_gen',
    description: 'Write a program for a competitive-programming problem; reward 1.0 when it passes every unit test.',
    needsJail: true,
    taskSchema: CodeGenTask,
    configurable: { schema: CodeGenSettings, create: (settings) => createCodeGen({ ...options, ...fromSettings(settings) }) },
    async verify(task, response): Promise<VerifyResult> {
      const difficulty = task.verifier_metadata.difficulty ?? null;
      const answer = outputText(response.output);
      const empty = {
        extracted_model_output: null,
        extracted_model_code: null,
        result: null,
        metadata: null,
        unit_tests_time_taken: null,
        reasoning_format_violation_rate: 0.0,
        difficulty,
      };
      if (pyStrip(answer) === '') return { ...empty, reward: 0.0, failure_reason: 'empty_answer' };
      const code = extractCode(answer);
      if (!code) return { ...empty, reward: 0.0, extracted_model_output: answer, failure_reason: 'no_code_block' };

      const started = performance.now();
      const { result, metadata } = await runTests(code, task.verifier_metadata.unit_tests);
      const elapsedSecs = (performance.now() - started) / 1000;
      const violation = hasReasoningFormatViolation(answer, response.output);
      const passed = result.every((r) => r === true);
      const failure = violation ? 'reasoning_format_violation' : passed ? undefined : failureOf(result);
      return {
        reward: violation ? options.reasoningFormatPenalty : passed ? 1.0 : 0.0,
        extracted_model_output: answer,
        extracted_model_code: code,
        result,
        metadata,
        unit_tests_time_taken: elapsedSecs,
        reasoning_format_violation_rate: violation ? 1.0 : 0.0,
        difficulty,
        ...(failure ? { failure_reason: failure } : {}),
      };
    },
  });
}

const FAILURES: Record<number, string> = { [-1]: 'killed', [-2]: 'wrong_answer', [-3]: 'time_limit_exceeded', [-4]: 'runtime_error' };

/** Named after the first failing test (a call-based wrong answer is recorded as false). */
function failureOf(result: readonly (boolean | number)[]): string {
  const first = result.find((r) => r !== true);
  return first === false ? 'wrong_answer' : (FAILURES[first as number] ?? 'failed');
}

export const codeGen = createCodeGen();
