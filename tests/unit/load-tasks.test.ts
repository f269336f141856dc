import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import { GymError } from '../../src/errors';
import { loadTasks } from '../../src/tasks/load';
import { tempDir } from '../helpers/run';

describe('loading a task file', () => {
  it('reports every bad row by line number and field path', async () => {
    const file = path.join(await tempDir(), 'tasks.jsonl');
    writeFileSync(file, ['{"responses_create_params": {"input": "hi"}, "options": [{"A": "x"}], "expected_answer": "A"}', '', '[1,', '{"responses_create_params": {"input": 3}}'].join('\n'));
    const err = await loadTasks(file, getEnvironment('mcqa')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GymError);
    const details = (err as GymError).details!.join('\n');
    expect(details).toMatch(/^line 3: not valid JSON/m);
    expect(details).toMatch(/^line 4: responses_create_params\.input: /m);
    expect(details).not.toMatch(/^line 1/m);
  });

  it('applies --limit before validating and hashes the rows used', async () => {
    const file = path.join(await tempDir(), 'tasks.jsonl');
    writeFileSync(file, '{"responses_create_params": {"input": "a"}}\n{"responses_create_params": {"input": "b"}}\nbroken\n');
    const env = getEnvironment('example_single_tool_call');
    const two = await loadTasks(file, env, 2);
    const one = await loadTasks(file, env, 1);
    expect(two.rows).toHaveLength(2);
    expect(two.datasetHash).not.toBe(one.datasetHash);
  });
});
