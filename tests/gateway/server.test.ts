// The gateway's HTTP surface: routes, model registration and listing, request validation and the
// OpenAI-style errors, and the headers every reply carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { authHeader, gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, type CapturedGateway } from './helpers';

let g: CapturedGateway;
let model: string;
const task = readJsonl(MULTI_STEP_TASKS)[0];

beforeAll(async () => {
  g = await gatewayWithLogs();
  model = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS });
});
afterAll(async () => {
  await g.gateway.close();
});

describe('registration', () => {
  it('names a spec by its content, defaults included, so registering again is a no-op', () => {
    const explicit = g.gateway.register({
      backend: 'mock',
      env: 'example_multi_step',
      tasks_file: MULTI_STEP_TASKS,
      seed: 0,
      accuracy: 1,
      latency_ms: 0,
      replay_files: [],
    });
    expect(explicit).toBe(model);
    expect(model).toMatch(/^mock-example_multi_step-[0-9a-f]{12}$/);
    const other = g.gateway.register({ backend: 'mock', env: 'example_multi_step', tasks_file: MULTI_STEP_TASKS, seed: 1 });
    expect(other).not.toBe(model);
  });

  it('rejects an invalid spec naming the field, and an unknown environment', () => {
    expect(() => g.gateway.register({ backend: 'mock', env: 'example_multi_step', accuracy: 2 })).toThrow(/accuracy/);
    let error: unknown;
    try {
      g.gateway.register({ backend: 'mock', env: 'no_such_env' });
    } catch (e) {
      error = e;
    }
    expect(isGymError(error) && error.code).toBe('NOT_FOUND');
  });

  it('lists registered models in OpenAI list format', async () => {
    const openaiName = g.gateway.register({ backend: 'openai', model: 'gpt-x', base_url: 'http://127.0.0.1:9/v1' });
    const res = await fetch(`${g.gateway.url}/models`, { headers: authHeader(g.gateway) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gymflow-backend')).toBe('gateway');
    const body = (await res.json()) as any;
    expect(body.object).toBe('list');
    const ids = body.data.map((m: any) => m.id);
    expect(ids).toContain(model);
    expect(ids).toContain(openaiName);
    const entry = body.data.find((m: any) => m.id === openaiName);
    expect(entry).toMatchObject({ object: 'model', owned_by: 'gymflow-openai' });
    expect(typeof entry.created).toBe('number');
  });
});

describe('errors', () => {
  it('names the offending field path in a 400', async () => {
    const res = await postJson(g.gateway, '/responses', {
      model,
      input: [
        { role: 'user', content: 'hi' },
        { role: 'robot', content: 'x' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_body', param: 'input[1].role' });
    expect(res.body.error.message).toContain('input[1].role');
  });

  it('reports a function_call item missing fields at the field, not at the item', async () => {
    const res = await postJson(g.gateway, '/responses', { model, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('input[0].call_id');
  });

  it('requires a model, and validates chat messages too', async () => {
    const noModel = await postJson(g.gateway, '/responses', { input: 'hi' });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error.param).toBe('model');
    const chat = await postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'tool', content: 'x' }] });
    expect(chat.status).toBe(400);
    expect(chat.body.error.param).toBe('messages[0].tool_call_id');
  });

  it('answers a body that is not JSON with 400 invalid_json', async () => {
    const res = await postJson(g.gateway, '/responses', '{"model": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('answers an unknown model with 404 naming it', async () => {
    const res = await postJson(g.gateway, '/responses', { model: 'nope', input: 'hi' });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(res.body.error.message).toContain('"nope"');
    expect(res.headers.get('x-gymflow-backend')).toBe('gateway');
  });

  it('answers unknown routes with 404 and wrong methods with 405', async () => {
    const missing = await fetch(`${g.gateway.url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeader(g.gateway) }, body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('unknown_route');
    const wrongMethod = await fetch(`${g.gateway.url}/responses`, { headers: authHeader(g.gateway) });
    expect(wrongMethod.status).toBe(405);
    expect(((await wrongMethod.json()) as any).error.code).toBe('method_not_allowed');
  });
});

describe('call identity', () => {
  it('gives every reply a unique call id and its backend, and logs the rollout id', async () => {
    const headers = { 'x-gymflow-rollout-id': 'rollout-7-3' };
    const a = await postJson(g.gateway, '/responses', { ...task.responses_create_params, model }, headers);
    const b = await postJson(g.gateway, '/responses', { ...task.responses_create_params, model }, headers);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-gymflow-backend')).toBe('mock');
    const ids = [a, b].map((r) => r.headers.get('x-gymflow-call-id'));
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const line = g.logLines().find((l) => l.call_id === ids[0] && l.msg === 'gateway call');
    expect(line).toMatchObject({ rollout_id: 'rollout-7-3', status: 200, backend: 'mock', model });
  });
});
