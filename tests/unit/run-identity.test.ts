// A run's identity is its folder: two folders that share a name are two runs with two workflows and
// two task queues, and the same folder is always the same run. Its identity (what a resume must keep)
// is the environment, model, agent settings and data, not concurrency, retries or endpoints.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import { prepareRun, readManifest } from '../../src/runs/client';
import { parseModelSpec } from '../../src/gateway/spec';
import { RunConfig, buildManifest, defaultRunId, identityDifferences, identityMatches, runIdentity, runTaskQueue } from '../../src/runs/manifest';
import { DEFAULT_RETRY, runWorkflowId } from '../../workflows/definitions';

describe('run ids', () => {
  it('differ for folders that share a name', () => {
    const a = defaultRunId('/data/runs/a/same');
    const b = defaultRunId('/data/runs/b/same');
    expect(a).not.toBe(b);
    expect(a.startsWith('same-')).toBe(true);
    expect(runWorkflowId(a)).not.toBe(runWorkflowId(b));
    expect(runTaskQueue(a)).not.toBe(runTaskQueue(b));
  });

  it('are the same for the same folder however it is spelt', () => {
    expect(defaultRunId('/data/runs/x/')).toBe(defaultRunId('/data/runs/x'));
    expect(defaultRunId(path.join('/data/runs', '..', 'runs', 'x'))).toBe(defaultRunId('/data/runs/x'));
  });

  it('are valid run ids for any folder name', () => {
    expect(defaultRunId('/tmp/my eval (v2)')).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(defaultRunId('/tmp/.hidden')).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
  });
});

/** A run of two repeats on an OpenAI-compatible endpoint. */
const configIn = (runDir: string) =>
  RunConfig.parse({
    runId: 'r',
    runDir,
    env: { name: 'mcqa' },
    inputFile: '/data/tasks.jsonl',
    model: parseModelSpec({ backend: 'openai', model: 'gpt-4.1', base_url: 'http://a.example/v1' }),
    numRepeats: 2,
    concurrency: 8,
    shards: 1,
    taskQueue: 'q',
    retry: DEFAULT_RETRY,
  });

describe('run identity', () => {
  const base = configIn('/data/runs/r');
  const openai = (over: Record<string, unknown>) => ({ ...base, model: parseModelSpec({ backend: 'openai', model: 'gpt-4.1', base_url: 'http://a.example/v1', ...over } as never) });

  it('ignores concurrency, shards, task queue, retries and the model endpoint', () => {
    const id = runIdentity(base, 'h');
    expect(runIdentity({ ...base, concurrency: 64, shards: 4, taskQueue: 'pool', retry: { ...DEFAULT_RETRY, maximumAttempts: 9 } }, 'h')).toBe(id);
    expect(runIdentity(openai({ base_url: 'http://b.example/v1', api_key_env: 'OTHER_KEY', timeouts: { connect_ms: 5 } }), 'h')).toBe(id);
  });

  it('changes with the model, the agent settings, the repeats and the data', () => {
    const id = runIdentity(base, 'h');
    expect(runIdentity(openai({ model: 'gpt-4.1-mini' }), 'h')).not.toBe(id);
    expect(runIdentity({ ...base, maxSteps: 3 }, 'h')).not.toBe(id);
    expect(runIdentity({ ...base, numRepeats: 3 }, 'h')).not.toBe(id);
    expect(runIdentity(base, 'other')).not.toBe(id);
  });

  it('changes with the history policy, and a run without one keeps the identity it had before policies existed', () => {
    const id = runIdentity(base, 'h');
    const turns = runIdentity({ ...base, historyPolicy: { last_turns: 2 } }, 'h');
    expect(turns).not.toBe(id);
    expect(runIdentity({ ...base, historyPolicy: { last_turns: 3 } }, 'h')).not.toBe(turns);
    // The endpoint fields runIdentity leaves out, as it did before history policies existed.
    const { base_url: _url, api_key_env: _key, timeouts: _timeouts, endpoint_file: _file, rotation: _rotation, ...model } = base.model as Record<string, unknown>;
    const before = createHash('sha256')
      .update(JSON.stringify({ env: base.env, model, judgeModel: null, numRepeats: 2, limit: null, maxSteps: null, datasetHash: 'h' }))
      .digest('hex')
      .slice(0, 16);
    expect(id).toBe(before);
  });

  it('still accepts a manifest whose identity was computed with the endpoint', () => {
    const stored = createHash('sha256')
      .update(JSON.stringify({ env: base.env, model: base.model, judgeModel: null, numRepeats: 2, limit: null, maxSteps: null, datasetHash: 'h' }))
      .digest('hex')
      .slice(0, 16);
    expect(identityMatches(stored, base, 'h')).toBe(true);
    expect(identityMatches(stored, openai({ base_url: 'http://b.example/v1' }), 'h')).toBe(false);
  });

  it('names each way a resumed run would differ', () => {
    const manifest = buildManifest(base, 'gymflow-run-r', 'h');
    expect(identityDifferences(manifest, { datasetHash: 'h', workflowIdentity: manifest.identity })).toEqual([]);
    const edited = { ...manifest, config: { ...manifest.config, numRepeats: 5 } };
    expect(identityDifferences(edited, { datasetHash: 'h' })).toEqual([expect.stringMatching(/configuration in manifest\.json .* is not the one the run started with/)]);
    expect(identityDifferences(manifest, { datasetHash: 'x' })).toEqual([expect.stringMatching(/the dataset \/data\/tasks\.jsonl changed since the run started/)]);
    expect(identityDifferences(manifest, { datasetError: 'no file /data/tasks.jsonl' })).toEqual(['the dataset cannot be checked: no file /data/tasks.jsonl']);
    expect(identityDifferences(manifest, { datasetHash: 'h', workflowIdentity: 'other' })).toEqual([expect.stringMatching(/ran with identity other, this folder's manifest says/)]);
  });
});

describe('a run prepared again in its folder', () => {
  it('re-attaches with a new endpoint and retries, and refuses another model', async () => {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-identity-'));
    const config = configIn(runDir);
    expect((await prepareRun(config, 'h')).resumed).toBe(false);
    const moved = { ...config, model: parseModelSpec({ backend: 'openai', model: 'gpt-4.1', base_url: 'http://b.example/v1' }), retry: { ...DEFAULT_RETRY, maximumAttempts: 7 } };
    const again = await prepareRun(moved, 'h');
    expect(again.resumed).toBe(true);
    expect(again.manifest.config.model).toMatchObject({ base_url: 'http://b.example/v1' });
    expect(again.manifest.config.retry.maximumAttempts).toBe(7);
    expect((await readManifest(runDir))!.config.model).toMatchObject({ base_url: 'http://b.example/v1' });
    await expect(prepareRun({ ...config, model: parseModelSpec({ backend: 'openai', model: 'gpt-5' }) }, 'h')).rejects.toThrow(/different configuration or dataset/);
  });
});
