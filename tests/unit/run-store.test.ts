// The run store's results API (now served by the results log) keeps one line per rollout id: torn
// tails are cut, duplicates are refused, and compaction leaves canonical files.
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonl, writeFileAtomic } from '../../src/store/jsonl';
import { RunStore } from '../../src/store/run-store';
import type { FailureRecord, RolloutRecord } from '../../src/schemas/records';
import { tempDir } from '../helpers/run';

const record = (id: string, reward = 1): RolloutRecord => {
  const [t, r] = id.split('-').map(Number);
  return { _ng_task_index: t!, _ng_rollout_index: r!, _ng_rollout_id: id, responses_create_params: {}, response: { id: 'resp', output: [] }, reward, _gf_model_call_ids: [] };
};

describe('jsonl', () => {
  it('parses with line numbers and keeps parse errors', () => {
    const lines = parseJsonl('{"a":1}\n\nnope\n');
    expect(lines[0]).toEqual({ line: 1, value: { a: 1 } });
    expect(lines[1]!.line).toBe(3);
    expect(lines[1]!.error).toBeDefined();
  });

  it('removes its temp file when the atomic write fails', async () => {
    const dir = await tempDir();
    // A non-empty folder where the file should go: the write succeeds, the rename cannot.
    mkdirSync(path.join(dir, 'target'));
    writeFileSync(path.join(dir, 'target', 'inside'), 'x');
    await expect(writeFileAtomic(path.join(dir, 'target'), 'content')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['target']);
  });
});

describe('run store', () => {
  it('appends each rollout once, even when many appends race', async () => {
    const store = new RunStore(await tempDir());
    const ids = Array.from({ length: 50 }, (_, i) => `${i % 10}-${Math.floor(i / 10)}`);
    const results = await Promise.all([...ids, ...ids].map((id) => store.appendRollout(record(id))));
    expect(results.filter(Boolean)).toHaveLength(50);
    const lines = readFileSync(store.rolloutsPath, 'utf8').split('\n').filter(Boolean);
    expect(new Set(lines.map((l) => JSON.parse(l)._ng_rollout_id)).size).toBe(50);
    expect(lines).toHaveLength(50);
    expect(await store.findRollout('3-2')).toEqual({ reward: 1 });
    expect(await store.findRollout('99-0')).toBeUndefined();
  });

  it('records every rollout again after the run folder is deleted and re-created (issue 6 item 1)', async () => {
    const dir = await tempDir();
    const store = new RunStore(dir);
    const ids = Array.from({ length: 10 }, (_, i) => `${i}-0`);
    for (const id of ids) expect(await store.appendRollout(record(id))).toBe(true);
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    expect(await store.findRollout('3-0')).toBeUndefined();
    for (const id of ids) expect(await store.appendRollout(record(id))).toBe(true);
    expect(readFileSync(store.rolloutsPath, 'utf8').split('\n').filter(Boolean)).toHaveLength(10);
  });

  it('recovers from a torn line left by a killed writer', async () => {
    const dir = await tempDir();
    writeFileSync(path.join(dir, 'rollouts.jsonl'), JSON.stringify(record('0-0')) + '\n' + JSON.stringify(record('0-1')).slice(0, 40));
    const store = new RunStore(dir);
    expect(await store.appendRollout(record('0-0'))).toBe(false);
    expect(await store.appendRollout(record('0-1'))).toBe(true);
    const rows = readFileSync(store.rolloutsPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r._ng_rollout_id)).toEqual(['0-0', '0-1']);
  });

  it('compacts: drops duplicates and sidecar lines of rollouts that later succeeded', async () => {
    const dir = await tempDir();
    const store = new RunStore(dir);
    appendFileSync(store.rolloutsPath, [record('0-0'), record('0-0'), record('1-0', 0)].map((r) => JSON.stringify(r) + '\n').join(''));
    const failure = (id: string) => ({ _ng_task_index: 0, _ng_rollout_index: 0, _ng_rollout_id: id, _ng_failure_class: 'model_error', message: 'x', stage: 'model', attempt: 3, failed_at: 'now' });
    appendFileSync(store.failuresPath, [failure('1-0'), failure('2-0')].map((f) => JSON.stringify(f) + '\n').join(''));
    const rollouts: RolloutRecord[] = [];
    const failures: FailureRecord[] = [];
    await store.scanResults({ rollout: (r) => rollouts.push(r), failure: (f) => failures.push(f) });
    expect(rollouts.map((r) => r._ng_rollout_id)).toEqual(['0-0', '1-0']);
    expect(failures.map((f) => f._ng_rollout_id)).toEqual(['2-0']);
    expect(readFileSync(store.failuresPath, 'utf8').trim().split('\n')).toHaveLength(1);
  });
});

describe('dropRecordedJournals', () => {
  it('removes the journals of recorded rollouts and keeps the others and the attempts set aside', async () => {
    const dir = await tempDir();
    const store = new RunStore(dir);
    await store.appendRollout(record('0-0'));
    mkdirSync(path.join(dir, 'work', 'attempts'), { recursive: true });
    // 0-0's made again by a stalled try after its record; 1-0 is still being played.
    writeFileSync(path.join(dir, 'work', '0-0.jsonl'), '{"kind":"failed_try","step":1}\n');
    writeFileSync(path.join(dir, 'work', '1-0.jsonl'), '{"kind":"seed","state":null}\n');
    writeFileSync(path.join(dir, 'work', 'attempts', '0-0-a0.jsonl'), '{"kind":"seed","state":null}\n');
    await store.dropRecordedJournals();
    expect(readdirSync(path.join(dir, 'work')).sort()).toEqual(['1-0.jsonl', 'attempts']);
    expect(readdirSync(path.join(dir, 'work', 'attempts'))).toEqual(['0-0-a0.jsonl']);
    // No work folder at all: nothing to do.
    await new RunStore(await tempDir()).dropRecordedJournals();
  });
});
