// The mock policy playing example_multi_step's oracle: right and wrong answers by accuracy, the same
// answers for the same seed and rollout, task lookup by input prefix, and the plain-message fallback.
import { mkdtemp, writeFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../src/schemas/task';
import { authHeader, gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl, runEpisode, type CapturedGateway } from './helpers';

const ENV = 'example_multi_step';
const tasks = readJsonl<TaskRow & { expected_synonyms: string[]; expected_synonym_values: number[]; minefield_label_value: number }>(MULTI_STEP_TASKS);

let g: CapturedGateway;
beforeAll(async () => {
  g = await gatewayWithLogs();
});
afterAll(async () => {
  await g.gateway.close();
});

const mock = (extra: Record<string, unknown> = {}) => g.gateway.register({ backend: 'mock', env: ENV, tasks_file: MULTI_STEP_TASKS, ...extra });

/** A response minus what legitimately differs between two identical calls. */
const stable = (r: any) => ({ ...r, id: undefined, created_at: undefined });

describe('oracle play', () => {
  it('solves every task with accuracy 1: one lookup per synonym, then the extraction', async () => {
    const model = mock();
    for (const [i, task] of tasks.entries()) {
      const episode = await runEpisode(g.gateway, model, ENV, task, `${i}-0`);
      expect(episode.reward).toBe(1);
      const calls = episode.output.filter((item: any) => item.type === 'function_call') as any[];
      expect(calls.map((c) => c.name)).toEqual([...task.expected_synonyms.map(() => 'get_synonym_value'), 'extract_synonym_values']);
      expect(calls.slice(0, -1).map((c) => JSON.parse(c.arguments).synonym)).toEqual(task.expected_synonyms);
      expect(episode.turns.at(-1)!.output.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
    }
  });

  it('answers wrongly with accuracy 0, and verify scores it 0', async () => {
    const model = mock({ accuracy: 0 });
    const task = tasks[0]!;
    const episode = await runEpisode(g.gateway, model, ENV, task, '0-0');
    expect(episode.reward).toBe(0);
    const extract = episode.output.find((item: any) => item.name === 'extract_synonym_values') as any;
    expect(JSON.parse(extract.arguments).synonym_values).toEqual([...task.expected_synonym_values].reverse().concat([task.minefield_label_value]));
  });

  it('with accuracy 0.5, some rollouts of one task are right and some wrong', async () => {
    const model = mock({ accuracy: 0.5 });
    const rewards = [];
    for (let r = 0; r < 12; r++) rewards.push((await runEpisode(g.gateway, model, ENV, tasks[1]!, `1-${r}`)).reward);
    expect(rewards).toContain(1);
    expect(rewards).toContain(0);
  });
});

describe('determinism', () => {
  it('gives the same output and token ids for the same seed, task, rollout and history — even on a fresh gateway', async () => {
    const spec = { backend: 'mock' as const, env: ENV, tasks_file: MULTI_STEP_TASKS, seed: 42, accuracy: 0.5 };
    const first = await runEpisode(g.gateway, g.gateway.register(spec), ENV, tasks[2]!, '2-5');
    const other = await gatewayWithLogs();
    try {
      const second = await runEpisode(other.gateway, other.gateway.register(spec), ENV, tasks[2]!, '2-5');
      expect(second.turns.map(stable)).toEqual(first.turns.map(stable));
    } finally {
      await other.gateway.close();
    }
  });

  it('differs between rollout ids and between seeds', async () => {
    const body = { ...tasks[0]!.responses_create_params };
    const callId = async (model: string, rollout: string) => (await postJson(g.gateway, '/responses', { ...body, model }, { 'x-gymflow-rollout-id': rollout })).body.output[0].call_id;
    const seed0 = mock({ seed: 0 });
    expect(await callId(seed0, 'a')).toBe(await callId(seed0, 'a'));
    expect(await callId(seed0, 'a')).not.toBe(await callId(seed0, 'b'));
    expect(await callId(seed0, 'a')).not.toBe(await callId(mock({ seed: 1 }), 'a'));
  });
});

describe('task lookup', () => {
  it('matches a task whatever the item spelling: explicit type, key order, null fields', async () => {
    const model = mock();
    const [system, user] = tasks[3]!.responses_create_params.input as any[];
    const respelled = [
      { type: 'message', id: null, content: system.content, role: 'system' },
      { status: null, role: 'user', type: 'message', content: user.content },
    ];
    const res = await postJson(g.gateway, '/responses', { ...tasks[3]!.responses_create_params, input: respelled, model });
    expect(res.body.output[0]).toMatchObject({ type: 'function_call', name: 'get_synonym_value' });
  });

  it('answers an unknown conversation with a plain assistant message and a warning, never an error', async () => {
    const model = mock();
    const res = await postJson(g.gateway, '/responses', { model, input: 'What is the capital of France?' }, { 'x-gymflow-rollout-id': 'stray-1' });
    expect(res.status).toBe(200);
    expect(res.body.output).toHaveLength(1);
    expect(res.body.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    const warning = g.logLines().find((l) => l.rollout_id === 'stray-1' && l.level === 40);
    expect(warning?.msg).toMatch(/no task matches/);
  });

  it('re-reads a task file that changed on disk, within a second', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gymflow-gateway-'));
    const file = path.join(dir, 'tasks.jsonl');
    const row = (synonyms: string[]) => JSON.stringify({ ...tasks[0], expected_synonyms: synonyms });
    await writeFile(file, `${row(['Blazing', 'Warm'])}\n`);
    const model = mock({ tasks_file: file });
    const firstLookup = async () => JSON.parse((await postJson(g.gateway, '/responses', { ...tasks[0]!.responses_create_params, model })).body.output[0].arguments).synonym;
    expect(await firstLookup()).toBe('Blazing');
    await writeFile(file, `${row(['Scorching', 'Warm'])}\n`);
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    // The gateway checks a file's version at most once a second.
    await expect.poll(firstLookup, { timeout: 10_000, interval: 200 }).toBe('Scorching');
  });
});

describe('latency', () => {
  it('waits latency_ms before answering', async () => {
    const model = mock({ latency_ms: 150 });
    const started = performance.now();
    const res = await postJson(g.gateway, '/responses', { ...tasks[0]!.responses_create_params, model });
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('stops waiting when the caller disconnects', async () => {
    const model = mock({ latency_ms: 30_000 });
    const call = fetch(`${g.gateway.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader(g.gateway), 'x-gymflow-rollout-id': 'gone-1' },
      body: JSON.stringify({ ...tasks[0]!.responses_create_params, model }),
      signal: AbortSignal.timeout(100),
    });
    await expect(call).rejects.toThrow();
    await expect
      .poll(() => g.logLines().find((l) => l.rollout_id === 'gone-1' && l.msg === 'gateway call'), { timeout: 2_000 })
      .toMatchObject({
        status: 499,
        error_code: 'client_closed',
      });
  });
});
