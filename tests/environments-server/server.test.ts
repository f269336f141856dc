// The environment server over real HTTP: NeMo Gym's recorded example_multi_step episodes replayed
// through its routes, the signed session cookie, per-session state, and NeMo Gym's error shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import { startEnvironmentServer, type EnvironmentServer } from '../../src/environments/server';
import { call, capturedLogger, counterEnv, counterTask, emptyResponse, multiStepEpisodes, post, recordedVerifyFields } from './helpers';

const episodes = multiStepEpisodes();
const multiStep = getEnvironment('example_multi_step');
const log = capturedLogger();
let server: EnvironmentServer;
let counter: EnvironmentServer;

beforeAll(async () => {
  server = await startEnvironmentServer({ env: multiStep, logger: log.logger });
  counter = await startEnvironmentServer({ env: counterEnv, logger: log.logger });
});
afterAll(async () => {
  await server.close();
  await counter.close();
});

async function seeded(url: string, task: unknown): Promise<string> {
  const seed = await post(url, '/seed_session', task);
  expect(seed.status).toBe(200);
  return seed.cookie!;
}

describe('NeMo Gym episodes replayed through the server', () => {
  it.each(episodes.map((e, i) => [i, e] as const))('episode %i: tool outputs and the verify result match the recording', async (_i, { task, rollout, calls }) => {
    const seed = await post(server.url, '/seed_session', task);
    expect(seed).toMatchObject({ status: 200, body: {} });
    let cookie = seed.cookie!;
    for (const c of calls) {
      const reply = await post(server.url, `/${c.name}`, JSON.parse(c.arguments), cookie);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(JSON.parse(c.output));
      cookie = reply.cookie!;
    }
    const verified = await post(server.url, '/verify', { ...task, response: rollout.response }, cookie);
    expect(verified.status).toBe(200);
    expect(verified.body.reward).toBe(rollout.reward);
    expect(verified.body).toMatchObject(recordedVerifyFields(rollout));
    // NeMo Gym's convention: the verify response echoes the request.
    expect(verified.body).toMatchObject({ ...task, response: { id: rollout.response.id } });
    // BaseVerifyResponse's fields, with its defaults: a valid measurement, no failure named.
    expect(verified.body).toMatchObject({ mask_sample: false, failure_kind: null, failure_reason: null });
  });

  it('verifies a stateless environment without a session, as re-verification does', async () => {
    const { task, rollout } = episodes[0]!;
    const verified = await post(server.url, '/verify', { ...task, response: rollout.response });
    expect(verified.status).toBe(200);
    expect(verified.body.reward).toBe(rollout.reward);
  });

  it("answers /aggregate_metrics as NeMo Gym's default does, with pass@k on the reward", async () => {
    const rows = episodes.map((e) => e.rollout);
    const wrong = { ...rows[0]!, reward: 0, accuracy: false };
    const reply = await post(server.url, '/aggregate_metrics', { verify_responses: [...rows, wrong] });
    expect(reply.status).toBe(200);
    const n = rows.length + 1;
    const tasks = new Set([...rows, wrong].map((r) => (r as { _ng_task_index?: number })._ng_task_index ?? 0));
    expect(reply.body.group_level_metrics.map((g: { _ng_task_index: number }) => g._ng_task_index)).toEqual([...tasks].sort((a, b) => a - b));
    expect(reply.body.agent_metrics['mean/reward']).toBeCloseTo(rows.length / n);
    expect(reply.body.agent_metrics['mean/accuracy']).toBeCloseTo(rows.length / n);
    expect(reply.body.agent_metrics['min/reward']).toBe(0);
    expect(reply.body.agent_metrics['max/reward']).toBe(1);
    expect(reply.body.agent_metrics['median/reward']).toBe(1);
    expect(reply.body.agent_metrics['std/reward']).toBeCloseTo(Math.sqrt(((rows.length / n) * (1 - rows.length / n) * n) / (n - 1)));
    // Token counts come from response.usage; nested objects are not columns.
    expect(reply.body.agent_metrics['mean/total_tokens']).toBeGreaterThan(0);
    expect(reply.body.agent_metrics).not.toHaveProperty('mean/response');
    expect(
      Object.keys(reply.body.key_metrics)
        .filter((k) => !k.startsWith('mean/'))
        .every((k) => /^(pass|majority)@/.test(k)),
    ).toBe(true);
    expect(reply.body.key_metrics['mean/reward']).toBe(reply.body.agent_metrics['mean/reward']);

    const bad = await post(server.url, '/aggregate_metrics', { verify_responses: 'nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'verify_responses']);
  });
});

describe('routes', () => {
  it('answers liveness and reverify_mode like NeMo Gym', async () => {
    expect(await call(server.url, 'GET', '/')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect((await call(server.url, 'GET', '/reverify_mode')).body).toBe('stateless');
    expect((await call(counter.url, 'GET', '/reverify_mode')).body).toBe('unsupported');
  });

  it('strips an /ng-rollout/<id> prefix and logs the rollout id', async () => {
    expect(await call(server.url, 'GET', '/ng-rollout/7-0')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const cookie = (await post(counter.url, '/ng-rollout/7-1/seed_session', counterTask(1))).cookie!;
    expect(await post(counter.url, '/ng-rollout/7-1/increment', {}, cookie)).toMatchObject({ status: 200, body: { count: 1 } });
    expect((await post(counter.url, '/ng-rollout/7-1/verify', { ...counterTask(1), response: emptyResponse }, cookie)).body.reward).toBe(1);
    expect(log.lines().some((l) => l.rollout_id === '7-1' && l.path === '/verify' && l.status === 200)).toBe(true);
  });

  it('answers an unknown route 404 and a wrong method 405, FastAPI-style', async () => {
    const cookie = await seeded(server.url, episodes[0]!.task);
    expect(await post(server.url, '/no_such_tool', {}, cookie)).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect(await post(server.url, '/no_such_tool', {})).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect(await call(server.url, 'GET', '/verify')).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
  });

  it('answers bad tool arguments 422 exactly as runTool does, naming the field', async () => {
    const cookie = await seeded(server.url, episodes[0]!.task);
    const reply = await post(server.url, '/get_synonym_value', { synonym: 3 }, cookie);
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([{ type: 'invalid_type', loc: ['body', 'synonym'], msg: expect.any(String) }]);
  });

  it('rejects a task row that does not fit the environment with 422 and loc', async () => {
    const { expected_synonym_values: _dropped, ...row } = episodes[0]!.task;
    const reply = await post(server.url, '/seed_session', row);
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'expected_synonym_values'] })]);
    const notJson = await call(server.url, 'POST', '/seed_session', undefined, undefined, '{oops');
    expect(notJson.status).toBe(400);
    expect(notJson.body.detail).toMatch(/not JSON/);
  });

  it('rejects a verify request without a response, naming body.response', async () => {
    const reply = await post(server.url, '/verify', episodes[0]!.task);
    expect(reply.status).toBe(422);
    expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([['body', 'response']]);
  });

  it('answers a thrown JudgeError with reward 0 and judge_failed, like judge_failsafe', async () => {
    const task = counterTask(0, { judge_down: true });
    const cookie = await seeded(counter.url, task);
    const reply = await post(counter.url, '/verify', { ...task, response: emptyResponse }, cookie);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ ...task, reward: 0, _ng_failure_class: 'judge_failed', _ng_failure_judge_error: 'judge endpoint returned 503' });
    // judge_failsafe's top-level fields: masked out of quality metrics, with the kind and the reason.
    expect(reply.body).toMatchObject({ mask_sample: true, failure_kind: 'judge_failed', failure_reason: 'judge endpoint returned 503' });
  });

  it('answers a tool that throws with a 500 and keeps serving', async () => {
    const cookie = await seeded(counter.url, counterTask(1));
    const reply = await post(counter.url, '/explode', {}, cookie);
    expect(reply.status).toBe(500);
    expect(reply.body).toBe('Error: the tool blew up');
    expect(await post(counter.url, '/increment', {}, cookie)).toMatchObject({ status: 200, body: { count: 1 } });
  });
});

describe('sessions', () => {
  it('sets the cookie on every response, reusing the one the request carried', async () => {
    const replies = [
      await call(server.url, 'GET', '/'),
      await call(server.url, 'GET', '/nowhere'),
      await post(server.url, '/seed_session', {}),
      await post(server.url, '/get_synonym_value', { synonym: 'x' }),
    ];
    for (const r of replies) expect(r.setCookie).toMatch(/^session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(new Set(replies.map((r) => r.cookie)).size).toBe(replies.length);

    const cookie = await seeded(server.url, episodes[0]!.task);
    for (const r of [await call(server.url, 'GET', '/', undefined, cookie), await post(server.url, '/get_synonym_value', { synonym: 'x' }, cookie), await post(server.url, '/nope', {}, cookie)]) {
      expect(r.cookie).toBe(cookie);
    }
  });

  it('refuses a tool call with no session, or a forged one, and hands out a fresh cookie', async () => {
    const none = await post(counter.url, '/increment', {});
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/no session: POST \/seed_session first/);

    const victim = await seeded(counter.url, counterTask(1));
    const [, signature] = victim.slice('session='.length).split('.');
    const forgedId = `session=00000000-0000-4000-8000-000000000000.${signature}`;
    const forgedSignature = `${victim.slice(0, victim.lastIndexOf('.'))}.AAAA${signature!.slice(4)}`;
    for (const forged of [forgedId, forgedSignature, `${victim.slice(0, victim.lastIndexOf('.'))}`]) {
      const reply = await post(counter.url, '/increment', {}, forged);
      expect(reply.status).toBe(400);
      expect(reply.cookie).not.toBe(victim);
    }
    // The victim's session was never touched.
    expect((await post(counter.url, '/verify', { ...counterTask(0), response: emptyResponse }, victim)).body).toMatchObject({ reward: 1, count: 0 });
  });

  it('keeps each session its own state, interleaved and concurrent', async () => {
    const [a, b] = [await seeded(counter.url, counterTask(3)), await seeded(counter.url, counterTask(2))];
    await post(counter.url, '/increment', {}, a);
    await post(counter.url, '/increment', { by: 2 }, b);
    await Promise.all([post(counter.url, '/increment', {}, a), post(counter.url, '/increment', {}, a)]);
    expect((await post(counter.url, '/verify', { ...counterTask(3), response: emptyResponse }, a)).body).toMatchObject({ reward: 1, count: 3 });
    expect((await post(counter.url, '/verify', { ...counterTask(2), response: emptyResponse }, b)).body).toMatchObject({ reward: 1, count: 2 });
  });

  it('re-seeding a session starts its state over', async () => {
    const cookie = await seeded(counter.url, counterTask(1));
    await post(counter.url, '/increment', { by: 5 }, cookie);
    expect((await post(counter.url, '/seed_session', counterTask(1), cookie)).cookie).toBe(cookie);
    expect(await post(counter.url, '/increment', {}, cookie)).toMatchObject({ body: { count: 1 } });
  });

  it('refuses to verify a stateful environment without its session', async () => {
    const reply = await post(counter.url, '/verify', { ...counterTask(0), response: emptyResponse });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/test_counter keeps state per rollout/);
  });

  it('drops the oldest session past maxSessions', async () => {
    const small = await startEnvironmentServer({ env: counterEnv, logger: log.logger, maxSessions: 2 });
    try {
      const [first, second, third] = [await seeded(small.url, counterTask(1)), await seeded(small.url, counterTask(1)), await seeded(small.url, counterTask(1))];
      expect((await post(small.url, '/increment', {}, first)).status).toBe(400);
      expect((await post(small.url, '/increment', {}, second)).status).toBe(200);
      expect((await post(small.url, '/increment', {}, third)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('startup', () => {
  it('refuses an environment whose tool is named like a protocol route', async () => {
    const env = { ...counterEnv, tools: { ...counterEnv.tools, verify: counterEnv.tools.increment! } };
    await expect(startEnvironmentServer({ env, logger: log.logger })).rejects.toThrow(/tools named like resources-server routes \(verify\)/);
  });

  it('reports a port in use as a setup failure', async () => {
    const port = Number(new URL(server.url).port);
    await expect(startEnvironmentServer({ env: counterEnv, port, logger: log.logger })).rejects.toMatchObject({ code: 'SETUP_FAILED' });
  });
});
