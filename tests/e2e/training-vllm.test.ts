// On-policy training data from a vLLM server, end to end: a multi-turn run through `--model vllm` against a
// FAKE vLLM (no GPU here; it speaks vLLM's token-capture wire format, tests/helpers/fake-vllm-server.ts),
// then `gym eval export-training`: every rollout's response ids and log-probs are exactly what vLLM sent.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { gymHere } from '../helpers/gym-here';
import { startFakeVLLM, type FakeVLLM } from '../helpers/fake-vllm-server';
import { runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { expectTrainingMatchesCallLog } from '../helpers/training-check';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const ROLLOUTS = 3;

let server: TestServer;
let vllm: FakeVLLM;
beforeAll(async () => {
  [server, vllm] = await Promise.all([startTestServer(), startFakeVLLM()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), vllm?.close()]);
});

describe('training export from vLLM', () => {
  it('holds, for every rollout of a three-turn run, the ids and log-probs vLLM returned, mask 1 exactly on them', async () => {
    // Each rollout: look a synonym up twice, then extract; one at a time, so the script's order is the rollouts'.
    for (let i = 0; i < ROLLOUTS; i++) {
      vllm.script(
        { tool_calls: [{ id: `call_${i}_a`, name: 'get_synonym_value', arguments: '{"synonym":"Outperform"}' }] },
        { content: 'One more.', tool_calls: [{ id: `call_${i}_b`, name: 'get_synonym_value', arguments: '{"synonym":"Desolate"}' }] },
        { tool_calls: [{ id: `call_${i}_c`, name: 'extract_synonym_values', arguments: '{"synonym_values":[1,2]}' }] },
        { content: 'Done.' },
      );
    }
    const runDir = path.join(await tempDir('gymflow-vllm-'), 'run');
    const config = buildRunConfig({
      env: 'example_multi_step',
      model: 'vllm',
      'model-name': 'fake-policy',
      'model-url': vllm.url,
      input: INPUT,
      output: runDir,
      limit: String(ROLLOUTS),
      concurrency: '1',
    });
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(ROLLOUTS);
    // vLLM was asked for its token capture on every call.
    for (const r of vllm.requests.filter((q) => q.path.endsWith('/chat/completions'))) {
      expect(r.body).toMatchObject({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true });
    }
    expect(vllm.sent).toHaveLength(ROLLOUTS * 4);

    const out = path.join(runDir, 'training.jsonl');
    const r = await gymHere(['eval', 'export-training', runDir, '--output', out]);
    expect(r.code, r.stderr).toBe(0);
    const lines = expectTrainingMatchesCallLog(runDir, out);
    // Independently of the call log: the generated tokens are the fake's own, turn after turn, in one chain.
    lines.forEach((line, i) => {
      const sent = vllm.sent.slice(i * 4, i * 4 + 4);
      const ones = line.response_token_ids.filter((_: number, k: number) => line.response_mask[k] === 1);
      expect(ones).toEqual(sent.flatMap((s) => s.generation_token_ids));
      expect(line.response_log_probs.filter((_: number, k: number) => line.response_mask[k] === 1)).toEqual(sent.flatMap((s) => s.generation_log_probs));
      expect(line.prompt_token_ids).toEqual(sent[0]!.prompt_token_ids);
      expect(line.chains).toBe(1);
    });
    expect(readFileSync(out, 'utf8')).not.toContain('token_id:');
  }, 300_000);
});
