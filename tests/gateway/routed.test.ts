// Gymflow's routed backend on a real gateway, over mock targets and a FAKE OpenAI upstream (fake_openai_upstream.ts): a rollout stays on the target its first
// call was given, the rules strategy reads the in-process caller's task row (or the one registered with a
// rollout-scoped URL), the serving target's own
// sampling overrides are applied, and the run folder gets the routing condition.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from './fake_openai_upstream';
import { callRecords, readJsonl, runFolder } from './helpers';

const MCQA = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(MCQA);

let gateway: Gateway;
let upstream: FakeOpenAIUpstream;
beforeAll(async () => {
  gateway = await startGateway({ logger: pino({ level: 'silent' }) });
  upstream = await startFakeOpenAIUpstream();
  process.env.GYMFLOW_TEST_ROUTED_KEY = 'routed-key';
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
  delete process.env.GYMFLOW_TEST_ROUTED_KEY;
});

describe('the routed backend', () => {
  it('keeps each rollout on its first target and records it per call, with the condition in the run folder', async () => {
    const runDir = await runFolder();
    const model = gateway.register({
      backend: 'routed',
      model: 'coin',
      strategy: { type: 'random', seed: 3 },
      targets: { a: { backend: 'mock', env: 'mcqa', tasks_file: MCQA }, b: { backend: 'mock', env: 'mcqa', tasks_file: MCQA, accuracy: 0 } },
    });
    const served = new Map<string, Set<string>>();
    for (let turn = 0; turn < 3; turn++) {
      for (let r = 0; r < 12; r++) {
        const reply = await gateway.call({ path: '/v1/responses', body: { model, input: tasks[r % 5]!.responses_create_params.input }, rolloutId: `${r}-0`, runDir });
        expect(reply.status).toBe(200);
        expect(reply.routing).toMatchObject({ by: 'gymflow', route: 'coin', strategy: 'random', session: `${r}-0` });
        if (!served.has(`${r}-0`)) served.set(`${r}-0`, new Set());
        served.get(`${r}-0`)!.add(reply.routing!.target);
      }
    }
    for (const targets of served.values()) expect(targets.size).toBe(1);
    expect(new Set([...served.values()].flatMap((t) => [...t]))).toEqual(new Set(['a', 'b']));
    const condition = JSON.parse(readFileSync(path.join(runDir, 'routing-condition.json'), 'utf8'));
    expect(condition).toMatchObject({ by: 'gymflow', route: 'coin', strategy: { type: 'random', seed: 3 }, targets: { a: { backend: 'mock', model: 'mock:mcqa' }, b: { backend: 'mock' } } });
  });

  it("routes by the task row's fields and applies the serving target's sampling overrides", async () => {
    const base = { backend: 'openai', api_key_env: 'GYMFLOW_TEST_ROUTED_KEY', base_url: upstream.url } as const;
    const model = gateway.register({
      backend: 'routed',
      strategy: { type: 'rules', rules: [{ when: { 'metadata.level': 'hard' }, target: 'big' }], default: 'small' },
      targets: { big: { ...base, model: 'big-model', sampling_overrides: { temperature: 0.1 } }, small: { ...base, model: 'small-model', sampling_overrides: { temperature: 0.9 } } },
    });
    const before = upstream.requests.length;
    const hard = await gateway.call({ path: '/v1/responses', body: { model, input: 'hi', temperature: 1.5 }, rolloutId: 'h-0', task: { metadata: { level: 'hard' } } });
    const easy = await gateway.call({ path: '/v1/responses', body: { model, input: 'hi' }, rolloutId: 'e-0', task: { metadata: { level: 'easy' } } });
    expect([hard.routing?.target, easy.routing?.target]).toEqual(['big', 'small']);
    expect(upstream.requests.slice(before).map((r) => [r.body.model, r.body.temperature])).toEqual([
      ['big-model', 0.1],
      ['small-model', 0.9],
    ]);
  });

  it("routes a harness's calls through a rollout-scoped URL by the task row registered with it", async () => {
    const runDir = await runFolder();
    const model = gateway.register({
      backend: 'routed',
      model: 'by-task',
      strategy: { type: 'rules', rules: [{ when: { 'metadata.level': 'hard' }, target: 'strong' }], default: 'weak' },
      targets: { strong: { backend: 'mock', env: 'mcqa', tasks_file: MCQA }, weak: { backend: 'mock', env: 'mcqa', tasks_file: MCQA, accuracy: 0 } },
    });
    // Registered over HTTP, as a harness runner outside the worker would.
    const register = async (rolloutId: string, task: Record<string, unknown>) => {
      const res = await fetch(`${gateway.url.replace(/\/v1$/, '')}/gymflow/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.token}` },
        body: JSON.stringify({ rollout_id: rolloutId, run_dir: runDir, model, task }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { base_url: string }).base_url;
    };
    for (const [rolloutId, level] of [
      ['hard-0', 'hard'],
      ['easy-0', 'easy'],
    ] as const) {
      const baseUrl = await register(rolloutId, { metadata: { level } });
      const res = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.token}` },
        body: JSON.stringify({ model: 'claude-whatever', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
    }
    const records = await callRecords(runDir);
    expect(records.map((r) => [r.rollout_id, r.routing?.target])).toEqual([
      ['hard-0', 'strong'],
      ['easy-0', 'weak'],
    ]);
  });

  it('records the target in a rollout-scoped call record', async () => {
    const runDir = await runFolder();
    const model = gateway.register({ backend: 'routed', strategy: { type: 'fixed', target: 'only' }, targets: { only: { backend: 'mock', env: 'mcqa', tasks_file: MCQA } } });
    const { baseUrl } = gateway.registerRollout({ rollout_id: '0-0', run_dir: runDir, model });
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.token}` },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect((await callRecords(runDir)).map((r) => r.routing)).toEqual([{ by: 'gymflow', route: 'routed', strategy: 'fixed', target: 'only', model: 'mock:mcqa', session: '0-0.a1' }]);
  });
});
