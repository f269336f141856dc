// `gym eval run --model-endpoint-file`: the model's replicas come from a file a serving job publishes,
// instead of a URL; the file's path is kept absolute, and the two ways are not mixed.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';

const input = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const flags = (extra: Record<string, unknown>) => ({
  env: 'mcqa',
  model: 'vllm',
  'model-name': 'qwen3',
  input,
  output: path.join(os.tmpdir(), `endpoint-file-${process.pid}-${Math.random()}`),
  ...extra,
});

describe('--model-endpoint-file', () => {
  it('puts the file, made absolute, on the model spec in place of a base URL', () => {
    const config = buildRunConfig(flags({ 'model-endpoint-file': 'serving/endpoints' }));
    expect(config.model).toMatchObject({ backend: 'vllm', model: 'qwen3', endpoint_file: path.resolve('serving/endpoints') });
    expect(config.model).not.toHaveProperty('base_url', expect.anything());
  });

  it('refuses it together with --model-url, and a vllm model with neither', () => {
    expect(() => buildRunConfig(flags({ 'model-endpoint-file': 'e', 'model-url': 'http://gpu:8000/v1' }))).toThrow(/--model-url and --model-endpoint-file do not go together/);
    expect(() => buildRunConfig(flags({}))).toThrow(/--model vllm needs --model-url .* or --model-endpoint-file/);
  });
});
