import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { configToFlags, readConfigFile } from '../../src/cli/config-file';
import { GymError } from '../../src/errors';

const KNOWN = new Set(['env', 'model', 'input', 'output', 'num-repeats', 'mock-accuracy', 'mock-replay', 'model-name', 'api-key-env', 'judge-model', 'limit']);
const CONFIGS = path.resolve(import.meta.dirname, '../../configs/evals');

describe('eval config files', () => {
  it('flattens settings and groups into flags', () => {
    const flags = configToFlags({ env: 'mcqa', num_repeats: 4, mock: { accuracy: 0.5, replay: ['a.jsonl'] }, openai: { name: 'gpt', api_key_env: 'K' }, judge: { model: 'mock' } }, KNOWN, 'f.yaml');
    expect(flags).toEqual({ env: 'mcqa', 'num-repeats': '4', 'mock-accuracy': '0.5', 'mock-replay': ['a.jsonl'], 'model-name': 'gpt', 'api-key-env': 'K', 'judge-model': 'mock' });
  });

  it('reads the model-call bounds under openai.timeouts into the spec, and leaves them out when unset', () => {
    const known = new Set([...KNOWN, 'model-first-byte-timeout-ms', 'model-total-timeout-ms', 'model-connect-timeout-ms', 'model-idle-timeout-ms']);
    const flags = configToFlags({ openai: { name: 'gpt', timeouts: { first_byte_ms: 30000, total_ms: 60000 } } }, known, 'f.yaml');
    expect(flags).toEqual({ 'model-name': 'gpt', 'model-first-byte-timeout-ms': '30000', 'model-total-timeout-ms': '60000' });
    expect(() => configToFlags({ openai: { timeouts: { first_byte: 1 } } }, known, 'f.yaml')).toThrow(/unknown setting "openai.timeouts.first_byte"/);
    const input = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
    const output = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'gymflow-config-')), 'run');
    const bounded = buildRunConfig({ env: 'mcqa', model: 'openai', input, output: output(), ...flags });
    expect(bounded.model).toMatchObject({ timeouts: { connect_ms: 10_000, first_byte_ms: 30_000, idle_ms: 60_000, total_ms: 60_000 } });
    const plain = buildRunConfig({ env: 'mcqa', model: 'openai', 'model-name': 'gpt', input, output: output() });
    expect(plain.model).not.toHaveProperty('timeouts');
  });

  it('names an unknown setting', () => {
    expect(() => configToFlags({ repeats: 3 }, KNOWN, 'f.yaml')).toThrow(/f.yaml: unknown setting "repeats"/);
    expect(() => configToFlags({ mock: { acuracy: 1 } }, KNOWN, 'f.yaml')).toThrow(GymError);
  });

  it.each(readdirSync(CONFIGS))('%s is a valid run configuration', (file) => {
    const flags = readConfigFile(path.join(CONFIGS, file), new Set([...KNOWN, 'concurrency', 'mock-seed', 'max-steps', 'model-url']));
    expect(path.isAbsolute(flags.output as string)).toBe(true);
    // buildRunConfig makes the output folder; keep it out of the repository.
    const config = buildRunConfig({ ...flags, output: path.join(mkdtempSync(path.join(os.tmpdir(), 'gymflow-config-')), 'run') });
    expect(config.env.name).toBe(flags.env);
    expect(path.isAbsolute(config.inputFile)).toBe(true);
  });
});
