// `sampling_overrides` and per-rollout caps on a real gateway in front of a FAKE vLLM server: the pinned
// settings reach the upstream on every route whatever the caller sent, and are recorded with the call;
// a rollout past its cap on model calls or generated tokens is refused with its own failure class.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureClassOf, GymError } from '../../src/errors';
import { withOverrides, withTokenCeiling } from '../../src/gateway/sampling';
import { startFakeVLLM, type FakeVLLM } from '../helpers/fake-vllm-server';
import { callRecords, gatewayWithLogs, postTo, runFolder, type CapturedGateway } from './helpers';

let g: CapturedGateway;
let fake: FakeVLLM;

beforeAll(async () => {
  g = await gatewayWithLogs();
  fake = await startFakeVLLM();
});
afterAll(async () => {
  await g.gateway.close();
  await fake.close();
});

const PINNED = { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 64, seed: 7, stop: ['</answer>'] };

describe('sampling_overrides', () => {
  it('force the pinned settings onto every route, over what the caller sent, and are recorded', async () => {
    const model = g.gateway.register({ backend: 'vllm', model: 'm-pinned', base_url: fake.url, sampling_overrides: PINNED });
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: 'pinned-0', run_dir: runDir, model });
    const from = fake.requests.length;
    const chat = await postTo(g.gateway, baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }], temperature: 1.5, max_completion_tokens: 4096, seed: 1 });
    const responses = await postTo(g.gateway, baseUrl, '/responses', { model, input: 'Hi', temperature: 1.2, top_p: 0.5, max_output_tokens: 9000 });
    const messages = await postTo(g.gateway, baseUrl, '/messages', { model, max_tokens: 2048, messages: [{ role: 'user', content: 'Hi' }], temperature: 1 });
    expect([chat.status, responses.status, messages.status]).toEqual([200, 200, 200]);
    const sent = fake.requests.slice(from).map((r) => r.body);
    // The caller's max_completion_tokens spelling is the one pinned; no contradicting max_tokens goes along.
    expect(sent[0]).toMatchObject({ temperature: 0.6, top_p: 0.95, top_k: 20, max_completion_tokens: 64, seed: 7, stop: ['</answer>'] });
    expect(sent[0]).not.toHaveProperty('max_tokens');
    for (const body of sent.slice(1)) expect(body).toMatchObject({ temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 64, seed: 7, stop: ['</answer>'] });
    const records = await callRecords(runDir);
    expect(records.map((r) => r.sampling_overrides)).toEqual([PINNED, PINNED, PINNED]);
    // What the caller asked for stays in the record's request.
    expect(records[0]!.request).toMatchObject({ temperature: 1.5, max_completion_tokens: 4096 });
  });

  it('are refused when misspelled, naming the field', () => {
    expect(() => g.gateway.register({ backend: 'vllm', model: 'm', base_url: fake.url, sampling_overrides: { temprature: 0 } as never })).toThrow(/sampling_overrides/);
  });

  it('write max_tokens in each request shape', () => {
    expect(withOverrides({ max_tokens: 5, max_completion_tokens: 6 }, { max_tokens: 3 }, 'chat')).toEqual({ max_completion_tokens: 3 });
    expect(withOverrides({ max_output_tokens: 9 }, { max_tokens: 3, seed: 1 }, 'responses')).toEqual({ max_output_tokens: 3, seed: 1 });
    expect(withTokenCeiling({ max_tokens: 50 }, 10, 'chat')).toEqual({ max_tokens: 10 });
    expect(withTokenCeiling({ max_tokens: 5 }, 10, 'chat')).toEqual({ max_tokens: 5 });
    expect(withTokenCeiling({}, 10, 'responses')).toEqual({ max_output_tokens: 10 });
  });
});

describe('per-rollout caps', () => {
  it('refuse the call past max_model_calls with rollout_cap_exceeded, recorded, its own failure class', async () => {
    const model = g.gateway.register({ backend: 'vllm', model: 'm-capped', base_url: fake.url });
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: 'capped-0', run_dir: runDir, model, max_model_calls: 2 });
    const from = fake.requests.length;
    const statuses: number[] = [];
    let last: any;
    for (let i = 0; i < 3; i++) {
      last = await postTo(g.gateway, baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: `call ${i}` }] });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 400]);
    expect(last.body.error).toMatchObject({ code: 'rollout_cap_exceeded' });
    expect(last.body.error.message).toContain('max_model_calls');
    expect(fake.requests.length - from).toBe(2);
    const records = await callRecords(runDir);
    expect(records.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'rollout_cap_exceeded']);
    expect(failureClassOf('CAP_EXCEEDED')).toBe('cap_exceeded');
    expect(new GymError('CAP_EXCEEDED', 'x').retryable).toBe(false);
  });

  it('lower each call’s max tokens to what is left of max_generated_tokens, then refuse', async () => {
    const model = g.gateway.register({ backend: 'vllm', model: 'm-token-capped', base_url: fake.url });
    const runDir = await runFolder();
    const { baseUrl } = g.gateway.registerRollout({ rollout_id: 'token-capped-0', run_dir: runDir, model, max_generated_tokens: 10 });
    fake.script({ content: 'abcd' }, { content: 'a much longer answer than the budget allows' });
    const from = fake.requests.length;
    const first = await postTo(g.gateway, baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: 'one' }], max_tokens: 100 });
    const second = await postTo(g.gateway, baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: 'two' }] });
    const third = await postTo(g.gateway, baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: 'three' }] });
    const firstIds = first.body.choices[0].message.generation_token_ids.length;
    expect(fake.requests.slice(from).map((r) => r.body.max_tokens)).toEqual([10, 10 - firstIds]);
    expect(second.body.choices[0].finish_reason).toBe('length');
    expect(third.status).toBe(400);
    expect(third.body.error.message).toContain('max_generated_tokens');
  });
});
