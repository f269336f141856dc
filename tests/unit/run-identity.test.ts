// A run's identity is its folder: two folders that share a name are two runs with two workflows and
// two task queues, and the same folder is always the same run.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRunId, runTaskQueue } from '../../src/runs/manifest';
import { runWorkflowId } from '../../workflows/definitions';

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
