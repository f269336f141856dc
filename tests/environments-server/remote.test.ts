// The remote environment pointed at our own environment server: the same tool outputs and rewards as
// the environment in-process, sessions that survive a worker restart (the state is just the cookie),
// and the failures a Temporal activity must see as errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../src/environments/tools';
import { getEnvironment } from '../../src/environments/registry';
import { createRemoteEnvironment, mergeCookies, type RemoteEnvironmentConfig, type RemoteState } from '../../src/environments/remote';
import { startEnvironmentServer, type EnvironmentServer } from '../../src/environments/server';
import { JudgeError } from '../../src/environments/types';
import { capturedLogger, counterEnv, counterTask, emptyResponse, multiStepEpisodes } from './helpers';

const multiStep = getEnvironment('example_multi_step');
const log = capturedLogger();
let multiStepServer: EnvironmentServer;
let counterServer: EnvironmentServer;

beforeAll(async () => {
  multiStepServer = await startEnvironmentServer({ env: multiStep, logger: log.logger });
  counterServer = await startEnvironmentServer({ env: counterEnv, logger: log.logger });
});
afterAll(async () => {
  await multiStepServer.close();
  await counterServer.close();
});

/** What Gymflow does between activities: the state goes to disk as JSON and a new worker reads it. */
function afterRestart(state: RemoteState): RemoteState {
  return JSON.parse(JSON.stringify(state)) as RemoteState;
}

describe('a remote environment replays NeMo Gym episodes like the environment in-process', () => {
  it.each(multiStepEpisodes().map((e, i) => [i, e] as const))('episode %i', async (_i, { task: row, rollout, calls }) => {
    const config: RemoteEnvironmentConfig = { name: 'example_multi_step', baseUrl: multiStepServer.url, tools: Object.keys(multiStep.tools), reverifyMode: 'stateless' };
    let remote = createRemoteEnvironment(config);
    const task = remote.taskSchema.parse(row);
    const localTask = multiStep.taskSchema.parse(row);
    let localState = await multiStep.seedSession(localTask);
    let remoteState = await remote.seedSession(task);
    expect(remoteState.cookie).toMatch(/^session=/);
    for (const c of calls) {
      const local = await runTool(multiStep, localTask, localState, c.name, c.arguments);
      const viaHttp = await runTool(remote, task, remoteState, c.name, c.arguments);
      expect(viaHttp.status).toBe(local.status);
      expect(viaHttp.output).toBe(local.output);
      expect(JSON.parse(viaHttp.output)).toEqual(JSON.parse(c.output));
      localState = local.state;
      // Every tool call may run on a different worker, with only the persisted state in hand.
      remoteState = afterRestart(viaHttp.state as RemoteState);
      remote = createRemoteEnvironment(config);
    }
    const local = await multiStep.verify(localTask, rollout.response, { state: localState });
    const viaHttp = await remote.verify(task, rollout.response, { state: remoteState });
    expect(viaHttp.reward).toBe(rollout.reward);
    expect(viaHttp).toMatchObject(local);
    // The echoed request is dropped: the record already holds the task and the episode.
    expect(viaHttp).not.toHaveProperty('response');
    expect(viaHttp).not.toHaveProperty('responses_create_params');
  });
});

describe('a stateful remote environment', () => {
  const config = (): RemoteEnvironmentConfig => ({ name: 'test_counter', baseUrl: counterServer.url, tools: ['increment'] });

  it('keeps each rollout its own server session across worker restarts', async () => {
    const env = createRemoteEnvironment(config());
    expect(env.reverifyMode).toBe('stateful');
    let a = await env.seedSession(counterTask(2));
    let b = await env.seedSession(counterTask(1));
    expect(a.cookie).not.toBe(b.cookie);
    a = (await runTool(env, counterTask(2), a, 'increment', '{}')).state as RemoteState;
    b = (await runTool(createRemoteEnvironment(config()), counterTask(1), afterRestart(b), 'increment', '{}')).state as RemoteState;
    const again = await runTool(createRemoteEnvironment(config()), counterTask(2), afterRestart(a), 'increment', '{}');
    expect(JSON.parse(again.output)).toEqual({ count: 2 });
    a = again.state as RemoteState;
    const fresh = createRemoteEnvironment(config());
    expect(await fresh.verify(counterTask(2), emptyResponse, { state: afterRestart(a) })).toEqual({ reward: 1, count: 2, expected: 2, mask_sample: false, failure_kind: null, failure_reason: null });
    expect(await fresh.verify(counterTask(1), emptyResponse, { state: afterRestart(b) })).toMatchObject({ reward: 1, count: 1 });
    expect(await fresh.verify(counterTask(5), emptyResponse, { state: afterRestart(b) })).toMatchObject({ reward: 0, count: 1 });
  });

  it('passes the server 422 for bad arguments through to the model', async () => {
    const env = createRemoteEnvironment(config());
    const state = await env.seedSession(counterTask(1));
    const reply = await runTool(env, counterTask(1), state, 'increment', '{"by":"two"}');
    expect(reply.status).toBe(422);
    expect(JSON.parse(reply.output).detail[0].loc).toEqual(['body', 'by']);
  });

  it('answers a tool name outside its config with a 404 of its own, never asking the server', async () => {
    const env = createRemoteEnvironment(config());
    const state = await env.seedSession(counterTask(1));
    const before = log.lines().length;
    for (const name of ['explode', 'verify', 'seed_session']) {
      const reply = await runTool(env, counterTask(1), state, name, '{}');
      expect(reply).toEqual({ status: 404, output: JSON.stringify({ detail: 'Not Found' }), state });
    }
    expect(log.lines().slice(before)).toEqual([]);
  });

  it('refuses tool names that are protocol routes or not one path segment', () => {
    for (const tools of [['verify'], ['seed_session'], ['../verify'], ['a/b'], ['']]) {
      expect(() => createRemoteEnvironment({ ...config(), tools })).toThrow(/remote environment test_counter/);
    }
  });

  it('turns a remote judge_failed into a JudgeError, so the rollout goes to the sidecar', async () => {
    const env = createRemoteEnvironment(config());
    const task = counterTask(0, { judge_down: true });
    const state = await env.seedSession(task);
    await expect(env.verify(task, emptyResponse, { state })).rejects.toThrow(JudgeError);
    await expect(env.verify(task, emptyResponse, { state })).rejects.toThrow('judge endpoint returned 503');
  });

  it('throws when the server rejects the task, naming the route and status', async () => {
    const env = createRemoteEnvironment(config());
    await expect(env.seedSession({ responses_create_params: { input: 'x' } })).rejects.toThrow(/test_counter: \/seed_session answered 422/);
  });
});

describe('failures the activity must retry', () => {
  let odd: Server;
  let oddUrl: string;

  beforeAll(async () => {
    // A server that answers as no Gymflow server would: text bodies, extra cookies, 500s.
    odd = createServer((req, res) => {
      if (req.url === '/seed_session') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('Internal Server Error');
      } else if (req.url === '/verify') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reward: 'high', _note: 1 }));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': ['route=b; Path=/', 'session=renewed; Path=/; HttpOnly'] });
        res.end(`plain words for ${req.headers.cookie}`);
      }
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    odd.closeAllConnections();
    await new Promise((resolve) => odd.close(resolve));
  });

  it('throws UNREACHABLE when nothing answers', async () => {
    const closed = await startEnvironmentServer({ env: counterEnv, logger: log.logger });
    await closed.close();
    const env = createRemoteEnvironment({ name: 'gone', baseUrl: closed.url, tools: ['increment'] });
    await expect(env.seedSession(counterTask(1))).rejects.toMatchObject({ code: 'UNREACHABLE' });
    await expect(runTool(env, counterTask(1), { cookie: 'session=x' }, 'increment', '{}')).rejects.toThrow(/gone: POST http:\/\/127\.0\.0\.1:\d+\/increment failed/);
  });

  it('throws on a 5xx seed and on a verify without a numeric reward', async () => {
    const env = createRemoteEnvironment({ name: 'odd', baseUrl: `${oddUrl}/`, tools: ['echo'] });
    await expect(env.seedSession(counterTask(1))).rejects.toThrow(/odd: \/seed_session answered 500: Internal Server Error/);
    await expect(env.verify(counterTask(1), emptyResponse, { state: { cookie: '' } })).rejects.toThrow(/without a numeric reward/);
  });

  it('passes a text tool reply through as text and keeps every cookie the server sets', async () => {
    const env = createRemoteEnvironment({ name: 'odd', baseUrl: oddUrl, tools: ['echo'] });
    const first = await env.tools.echo!.run({}, { task: counterTask(1), state: { cookie: 'session=old' } });
    expect(first).toEqual({ status: 200, body: 'plain words for session=old', state: { cookie: 'session=renewed; route=b' } });
    const second = await env.tools.echo!.run({}, { task: counterTask(1), state: first.state });
    expect(second.body).toBe('plain words for session=renewed; route=b');
  });
});

describe('mergeCookies', () => {
  it('replaces cookies set again and keeps the others', () => {
    expect(mergeCookies('', undefined)).toBe('');
    expect(mergeCookies('', 'session=a.b; Path=/; HttpOnly')).toBe('session=a.b');
    expect(mergeCookies('session=a; lb=1', ['session=c; Path=/', 'x=y'])).toBe('session=c; lb=1; x=y');
  });
});
