// Replicas and rotation on a real gateway in front of FAKE vLLM servers (tests/helpers/fake-vllm-server.ts):
// a rollout stays on one replica, a dead replica's rollouts fail over without a failed call, an
// endpoint_file rewritten mid-run moves the traffic without a failed rollout (even through a gap
// with no live endpoint), and connection retries are bounded, ending in upstream_unreachable.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { Replicas } from '../../src/gateway/backends/replicas';
import { Rotation } from '../../src/gateway/spec';
import { startFakeVLLM, type FakeVLLM } from '../helpers/fake-vllm-server';
import { waitFor } from '../helpers/worker-process';
import { callRecords, gatewayWithLogs, postJson, postTo, runFolder, type CapturedGateway } from './helpers';

let g: CapturedGateway;
let dir: string;
const closers: (() => Promise<void>)[] = [];

async function fake(): Promise<FakeVLLM> {
  const f = await startFakeVLLM();
  closers.push(() => f.close());
  return f;
}

/** A replica that is down hard: it takes each connection and drops it at once, counting them. */
async function droppingReplica(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, connections: () => connections };
}

beforeAll(async () => {
  g = await gatewayWithLogs();
  dir = await mkdtemp(path.join(tmpdir(), 'gymflow-replicas-'));
});
afterAll(async () => {
  await g.gateway.close();
  await Promise.all(closers.map((c) => c()));
  await rm(dir, { recursive: true, force: true });
});

/** Which replica served each call that mentions `tag` in its last user message. */
function servedBy(replicas: FakeVLLM[], tag: string): number[] {
  const hits: number[] = [];
  replicas.forEach((r, i) => {
    for (const req of r.requests) if (JSON.stringify(req.body.messages?.at(-1)).includes(`[${tag}]`)) hits.push(i);
  });
  return hits;
}

const turn = (model: string, rollout: string, n: number) =>
  postJson(g.gateway, '/chat/completions', { model, messages: [{ role: 'user', content: `[${rollout}] turn ${n}` }] }, { 'x-gymflow-rollout-id': rollout });

describe('several base URLs', () => {
  it('keeps every turn of a rollout on one replica and spreads rollouts over the replicas', async () => {
    const replicas = [await fake(), await fake()];
    const model = g.gateway.register({ backend: 'vllm', model: 'm-sticky', base_url: replicas.map((r) => r.url) });
    const rollouts = Array.from({ length: 16 }, (_, i) => `sticky-${i}`);
    for (let n = 0; n < 3; n++) {
      const replies = await Promise.all(rollouts.map((r) => turn(model, r, n)));
      expect(replies.map((r) => r.status)).toEqual(rollouts.map(() => 200));
    }
    const homes = rollouts.map((r) => servedBy(replicas, r));
    for (const home of homes) expect(new Set(home).size, `turns went to replicas ${home}`).toBe(1);
    expect(new Set(homes.map((h) => h[0])).size).toBe(2);
  });

  it('moves the rollouts of a dead replica to a live one, and only those, without a failed call', async () => {
    const replicas = [await fake(), await fake()];
    const model = g.gateway.register({ backend: 'vllm', model: 'm-failover', base_url: replicas.map((r) => r.url) });
    const rollouts = Array.from({ length: 12 }, (_, i) => `failover-${i}`);
    await Promise.all(rollouts.map((r) => turn(model, r, 0)));
    const before = rollouts.map((r) => servedBy(replicas, r)[0]);
    expect(before).toContain(0);
    await replicas[0]!.close();
    const replies = await Promise.all(rollouts.map((r) => turn(model, r, 1)));
    expect(replies.map((r) => r.status)).toEqual(rollouts.map(() => 200));
    for (const r of rollouts) expect(servedBy(replicas, r).at(-1)).toBe(1);
    // Rollouts already on the live replica never left it.
    rollouts.forEach((r, i) => {
      if (before[i] === 1) expect(servedBy(replicas, r)).toEqual([1, 1]);
    });
  });
});

describe('endpoint_file', () => {
  it('moves traffic to the endpoint a rewritten file names, mid-run, without a failed rollout', async () => {
    const [a, b] = [await fake(), await fake()];
    const file = path.join(dir, 'rotating-endpoint');
    await writeFile(file, `${a.url}\n`);
    const model = g.gateway.register({ backend: 'vllm', model: 'm-rotate', endpoint_file: file });
    const runDir = await runFolder();
    const rollouts = Array.from({ length: 4 }, (_, i) => g.gateway.registerRollout({ rollout_id: `rotate-${i}`, run_dir: runDir, model }));
    const play = (n: number) => Promise.all(rollouts.map((r, i) => postTo(g.gateway, r.baseUrl, '/chat/completions', { model, messages: [{ role: 'user', content: `[rotate-${i}] turn ${n}` }] })));
    expect((await play(0)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // The serving job moves: it publishes the new endpoint and the old one goes away.
    await writeFile(file, `${b.url}\n`);
    await a.close();
    for (let n = 1; n < 3; n++) expect((await play(n)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(a.requests).toHaveLength(4);
    expect(b.requests).toHaveLength(8);
    const records = await callRecords(runDir);
    expect(records).toHaveLength(12);
    expect(records.every((r) => r.status === 200 && r.tokens !== undefined)).toBe(true);
  });

  it('rides out a gap with no live endpoint within its connection retries, until the successor is published', async () => {
    const dead = await droppingReplica();
    const successor = await fake();
    const file = path.join(dir, 'gap-endpoint');
    await writeFile(file, `${dead.url}\n`);
    const model = g.gateway.register({ backend: 'vllm', model: 'm-gap', endpoint_file: file, rotation: { connection_retries: 12, retry_backoff_ms: 50 } });
    const reply = turn(model, 'gap-0', 0);
    await waitFor(async () => dead.connections() > 0, 'the gateway to try the dead endpoint');
    await writeFile(file, `${successor.url}\n`);
    expect((await reply).status).toBe(200);
    expect(successor.requests).toHaveLength(1);
  });

  it('stops after its bounded connection retries with upstream_unreachable naming what it tried', async () => {
    const dead = await droppingReplica();
    const file = path.join(dir, 'dead-endpoint');
    await writeFile(file, `${dead.url}\n`);
    const model = g.gateway.register({ backend: 'vllm', model: 'm-dead', endpoint_file: file, rotation: { connection_retries: 2, retry_backoff_ms: 10 } });
    const res = await turn(model, 'dead-0', 0);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_unreachable');
    expect(res.body.error.message).toContain('after 3 attempts');
    expect(res.body.error.message).toContain(dead.url);
    expect(dead.connections()).toBe(3);
  });

  it('refuses a spec with neither base_url nor endpoint_file', () => {
    let thrown: unknown;
    try {
      g.gateway.register({ backend: 'vllm', model: 'm-nowhere' });
    } catch (e) {
      thrown = e;
    }
    expect(isGymError(thrown) && thrown.code).toBe('BAD_INPUT');
  });
});

describe('Replicas', () => {
  it('keeps the last endpoints while the file is missing, for endpoint_stale_grace_ms only', async () => {
    const file = path.join(dir, 'grace-endpoint');
    await writeFile(file, 'http://127.0.0.1:9/v1\n');
    let now = 0;
    const replicas = new Replicas({ baseUrls: [], endpointFile: file }, Rotation.parse({ endpoint_check_ms: 0, endpoint_stale_grace_ms: 1_000 }), () => now);
    expect(await replicas.pick('s')).toBe('http://127.0.0.1:9/v1');
    await rm(file);
    now = 900;
    expect(await replicas.pick('s')).toBe('http://127.0.0.1:9/v1');
    now = 2_000;
    await expect(replicas.pick('s')).rejects.toThrow(/names no endpoint \(the file is missing\)/);
    await writeFile(file, '# moved\nhttp://127.0.0.1:10/v1\n');
    expect(await replicas.pick('s')).toBe('http://127.0.0.1:10/v1');
  });
});
