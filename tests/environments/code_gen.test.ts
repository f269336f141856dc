// code_gen against NeMo Gym: the recorded rollouts' rewards, per-test result arrays and metadata are
// reproduced by really running the programs in python3; code_gen.cases.jsonl holds what NeMo Gym's own
// harness answered for small programs that probe its semantics (code_gen.cases.py). The limits are
// exercised for real: an endless loop, a program that ignores the alarm, and a memory hog.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeGen, createCodeGen, CodeGenTask, DEFAULT_CODE_GEN_OPTIONS } from '../../src/environments/code_gen';
import { extractCode, hasReasoningFormatViolation } from '../../src/environments/code_gen/extract';
import { createSandbox, type UnitTests } from '../../src/environments/code_gen/sandbox';
import { answerKey, codeGenOracle } from '../../src/environments/code_gen/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, answerResponse, joinToTasks, readJsonl } from './nemo_fixtures';

const dir = path.join(FIXTURES, 'code_gen');
const tasks = readJsonl(path.join(dir, 'example.jsonl')) as { responses_create_params: { input: unknown } }[];

function withoutTiming(metadata: unknown): unknown {
  if (metadata === null || typeof metadata !== 'object') return metadata;
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== 'execution time' && k !== 'traceback'));
}

function stdioTask(tests: UnitTests, difficulty?: string): CodeGenTask {
  return CodeGenTask.parse({ responses_create_params: { input: 'Solve it.' }, verifier_metadata: { unit_tests: tests, difficulty } });
}

const fenced = (code: string) => answerResponse(`Here you go:\n\`\`\`python\n${code}\n\`\`\``);

describe('code_gen conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl(path.join(dir, 'example_rollouts.jsonl')) as {
    responses_create_params: { input: unknown };
    response: ResponseObject;
    reward: number;
    result: unknown[];
    metadata: Record<string, unknown>;
    extracted_model_code: string;
  }[];
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout ${i}: reward ${rollout.reward} and per-test results ${JSON.stringify(rollout.result).slice(0, 40)}`, async () => {
      const result = await codeGen.verify(CodeGenTask.parse(task), rollout.response, { state: null });
      expect(result.reward).toBe(rollout.reward);
      expect(result.result).toEqual(rollout.result);
      expect(withoutTiming(result.metadata)).toEqual(withoutTiming(rollout.metadata));
      expect(result.extracted_model_code).toBe(rollout.extracted_model_code);
      expect(typeof result.unit_tests_time_taken).toBe('number');
      if (rollout.reward === 0) expect(result.failure_reason).toBe('wrong_answer');
      else expect(result.failure_reason).toBeUndefined();
    });
  });
});

describe('code_gen runner against NeMo Gym harness cases', () => {
  const cases = readJsonl(path.join(import.meta.dirname, 'code_gen.cases.jsonl')) as {
    code: string;
    tests: UnitTests;
    result: unknown[];
    metadata: unknown;
  }[];
  const run = createSandbox({ ...DEFAULT_CODE_GEN_OPTIONS, timeoutSecs: 1, memoryBytes: 4 * 1024 ** 3, concurrency: 2 });

  it(`gives NeMo Gym's per-test results and metadata for ${cases.length} programs`, async () => {
    const outcomes = await Promise.all(
      cases.map(async (c) => {
        const { result, metadata } = await run(c.code, c.tests);
        return { code: c.code, got: [result, withoutTiming(metadata)], want: [c.result, c.metadata] };
      }),
    );
    expect(outcomes.filter((o) => JSON.stringify(o.got) !== JSON.stringify(o.want))).toEqual([]);
  });
});

describe('code_gen limits', () => {
  const fast = createCodeGen({ timeoutSecs: 1, memoryBytes: 256 * 1024 ** 2 });

  it('stops an endless loop at the per-test time limit (-3) and skips the remaining tests', async () => {
    const task = stdioTask({ inputs: ['1', '2'], outputs: ['1', '2'] });
    const result = await fast.verify(task, fenced('while True:\n    pass'), { state: null });
    expect(result).toMatchObject({ reward: 0, result: [-3], failure_reason: 'time_limit_exceeded' });
    expect(result.metadata).toMatchObject({ error_code: -3, error_message: 'Time Limit Exceeded' });
  });

  it('kills the whole process group at the overall deadline when the program ignores the alarm (-1 for every test)', async () => {
    // The program also starts a grandchild (the jail has no other program than python); the deadline
    // must take it down too.
    const marker = `grandchild-${process.pid}-${Date.now()}`;
    const code = [
      'import os, signal, sys',
      `os.posix_spawn(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', '${marker}'], {})`,
      'signal.signal(signal.SIGALRM, signal.SIG_IGN)',
      'while True:',
      '    pass',
    ].join('\n');
    const task = stdioTask({ inputs: ['x'], outputs: ['y'] });
    const started = Date.now();
    const result = await fast.verify(task, fenced(code), { state: null });
    expect(result).toMatchObject({ reward: 0, result: [-1], metadata: null, failure_reason: 'killed' });
    // NeMo Gym's deadline: (1 s + 1) × 1 test + 5 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_900);
    expect(Date.now() - started).toBeLessThan(20_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(marker);
  }, 30_000);

  it('stops a memory hog with MemoryError at the memory limit (-4)', async () => {
    const task = stdioTask({ inputs: [''], outputs: ['done'] });
    const result = await fast.verify(task, fenced("block = bytearray(1024 ** 3)\nprint('done')"), { state: null });
    expect(result).toMatchObject({ reward: 0, result: [-4], failure_reason: 'runtime_error' });
    expect(result.metadata).toMatchObject({ error: 'MemoryError()', error_message: 'Runtime Error' });
  });

  it('runs each test with its own input and reports every result', async () => {
    const task = stdioTask({ inputs: ['2 3\n', '10 -4\n', '1 1\n'], outputs: ['5', '6', '2'] });
    const result = await fast.verify(task, fenced('a, b = map(int, input().split())\nprint(a + b)'), { state: null });
    expect(result).toMatchObject({ reward: 1, result: [true, true, true], extracted_model_code: 'a, b = map(int, input().split())\nprint(a + b)' });
  });

  it('refuses to score when python cannot be started', async () => {
    const broken = createCodeGen({ python: '/nonexistent/python3' });
    await expect(broken.verify(stdioTask({ inputs: [''], outputs: [''] }), fenced('print()'), { state: null })).rejects.toThrow(/cannot start/);
  });
});

describe('code_gen answers', () => {
  const task = stdioTask({ inputs: ['3\n'], outputs: ['9'] }, 'easy');

  it('scores empty and fence-less answers 0 without running anything', async () => {
    expect(await codeGen.verify(task, answerResponse('  \n\t'), { state: null })).toMatchObject({
      reward: 0,
      failure_reason: 'empty_answer',
      extracted_model_output: null,
      difficulty: 'easy',
    });
    expect(await codeGen.verify(task, { id: 'r', output: [] }, { state: null })).toMatchObject({ reward: 0, failure_reason: 'empty_answer' });
    expect(await codeGen.verify(task, answerResponse('print(int(input())**2)'), { state: null })).toMatchObject({
      reward: 0,
      failure_reason: 'no_code_block',
      extracted_model_output: 'print(int(input())**2)',
      extracted_model_code: null,
    });
  });

  it('grades the last fenced block and handles unicode output', async () => {
    const answer = '```python\nprint(0)\n```\nBetter:\n```python\nn = int(input())\nprint(n * n)\n```';
    expect(extractCode(answer)).toBe('n = int(input())\nprint(n * n)');
    expect(await codeGen.verify(task, answerResponse(answer), { state: null })).toMatchObject({ reward: 1, result: [true] });
    const greek = stdioTask({ inputs: ['λ\n'], outputs: ['λλ ✓'] });
    expect(await codeGen.verify(greek, fenced("s = input()\nprint(s * 2, '✓')"), { state: null })).toMatchObject({ reward: 1 });
  });

  it('applies the reasoning-format penalty when think tags leak into the answer', async () => {
    const leaky = answerResponse('</think>\n```python\nprint(int(input())**2)\n```');
    expect(await codeGen.verify(task, leaky, { state: null })).toMatchObject({
      reward: 0,
      reasoning_format_violation_rate: 1,
      failure_reason: 'reasoning_format_violation',
      result: [true],
    });
    const reasoning: ResponseObject = {
      id: 'r',
      output: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: '<think>a</think><think>b' }] }],
    };
    expect(hasReasoningFormatViolation('', reasoning.output)).toBe(true);
    expect(hasReasoningFormatViolation('', [{ type: 'reasoning', summary: [{ type: 'summary_text', text: '<think>a</think>' }] }])).toBe(false);
  });

  it('counts the call-based wrong answer as false, like NeMo Gym', async () => {
    const callTask = stdioTask({ inputs: ['1\n2'], outputs: ['3'], fn_name: 'add' });
    expect(await codeGen.verify(callTask, fenced('class Solution:\n    def add(self, a, b):\n        return a * b'), { state: null })).toMatchObject({
      reward: 0,
      result: [false],
      failure_reason: 'wrong_answer',
    });
  });
});

describe('code_gen oracle', () => {
  it('answers with a program that passes (stdin and call-based tasks) or one that fails', async () => {
    const parsed = tasks.map((t) => CodeGenTask.parse(t)).slice(0, 2);
    const callTask = stdioTask({ inputs: ['[3, 1]\n2', '[]\n0'], outputs: ['[1, 3]', '[]'], fn_name: 'sortIt' });
    for (const task of [...parsed, callTask]) {
      for (const correct of [true, false]) {
        const output = codeGenOracle(task, [], { correct, rng: seededRng(1) });
        const result = await codeGen.verify(task, { id: 'r', output }, { state: null });
        expect(result.reward).toBe(correct ? 1 : 0);
      }
    }
    expect(answerKey({ inputs: ['1'], outputs: ['2'], fn_name: 'f' })).toContain('def f(self, *args)');
  }, 60_000);
});
