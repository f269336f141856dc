// Environment settings travel in the environment's name (`name?key=value`), are validated strictly,
// and change behaviour: here math_with_judge's should_use_judge.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { getEnvironment } from '../../src/environments/registry';
import { configuredEnvironmentName } from '../../src/environments/names';
import { JudgeError } from '../../src/environments/types';

const EXAMPLE = path.resolve(import.meta.dirname, '../../src/environments/math_with_judge/data/example.jsonl');
const task = JSON.parse(readFileSync(EXAMPLE, 'utf8').split('\n')[0]!);
const wrongAnswer = { id: 'resp', output: [{ type: 'message' as const, role: 'assistant' as const, content: [{ type: 'output_text', text: '\\boxed{-12345}' }] }] };

describe('environment settings', () => {
  it('names settings canonically and applies them', async () => {
    const name = configuredEnvironmentName('math_with_judge', { should_use_judge: true });
    expect(name).toBe('math_with_judge?should_use_judge=true');
    expect(configuredEnvironmentName('math_with_judge', {})).toBe('math_with_judge');
    const plain = getEnvironment('math_with_judge');
    const judged = getEnvironment(name);
    expect(judged.name).toBe(name);
    expect((await plain.verify(plain.taskSchema.parse(task), wrongAnswer, { state: null })).reward).toBe(0);
    // With the judge on, a failed library check asks the judge; without one configured that is a JudgeError.
    await expect(async () => judged.verify(judged.taskSchema.parse(task), wrongAnswer, { state: null })).rejects.toBeInstanceOf(JudgeError);
  });

  it('rejects unknown settings, bad values and environments without settings', () => {
    expect(() => getEnvironment('math_with_judge?shold_use_judge=true')).toThrow(/shold_use_judge/);
    expect(() => getEnvironment('math_with_judge?should_use_judge=3')).toThrow(/should_use_judge/);
    expect(() => getEnvironment('mcqa?x=1')).toThrow(/has no settings/);
  });

  it('comes from --env-option on the command line', () => {
    const config = buildRunConfig({ env: 'math_with_judge', 'env-option': ['should_use_judge=true'], model: 'mock', input: EXAMPLE, output: '/tmp/gymflow-options-test' });
    expect(config.env).toEqual({ name: 'math_with_judge', options: { should_use_judge: true } });
    expect(() => buildRunConfig({ env: 'math_with_judge', 'env-option': ['nope'], model: 'mock', input: EXAMPLE, output: '/tmp/x' })).toThrow(/KEY=VALUE/);
  });
});
