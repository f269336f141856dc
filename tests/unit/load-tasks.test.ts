import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const mcqaRow = (input: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ responses_create_params: { input }, options: [{ A: 'x' }, { B: 'y' }], expected_answer: 'A', ...extra });

async function taskFile(content: string | Buffer): Promise<string> {
  const file = path.join(await tempDir(), 'tasks.jsonl');
  writeFileSync(file, content);
  return file;
}

async function refusal(file: string, limit?: number): Promise<GymError> {
  const err = await loadTasks(file, getEnvironment('mcqa'), limit).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GymError);
  expect((err as GymError).code).toBe('BAD_INPUT');
  return err as GymError;
}

describe('loading a task file refuses rows it cannot run as given', () => {
  it('refuses the same _ng_task_index on different rows, naming the lines', async () => {
    const file = await taskFile(['a', 'b', 'c', 'd'].map((q) => mcqaRow(q, { _ng_task_index: 0 })).join('\n') + '\n');
    const err = await refusal(file);
    expect(err.details).toEqual([expect.stringMatching(/^lines 1, 2, 3, 4: the same _ng_task_index 0\b/)]);
    // Many holders of one index are named up to ten, then counted.
    const many = await taskFile(Array.from({ length: 12 }, (_, i) => mcqaRow(`q${i}`, { _ng_task_index: 5 })).join('\n'));
    expect((await refusal(many)).details).toEqual([expect.stringMatching(/^lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more: the same _ng_task_index 5\b/)]);
  });

  it('refuses an index that another row without one takes from its position', async () => {
    // Row 2 (line 3, after a blank line) has no index, so collation would give it 1, which line 4 claims.
    const file = await taskFile([mcqaRow('a'), '', mcqaRow('b'), mcqaRow('c', { _ng_task_index: 1 })].join('\n') + '\n');
    const err = await refusal(file);
    expect(err.details).toEqual([expect.stringMatching(/^lines 3 \(no _ng_task_index, so its position 1\), 4: the same _ng_task_index 1\b/)]);
    // Indices that are all distinct, given or positional, load.
    const fine = await taskFile([mcqaRow('a'), mcqaRow('b', { _ng_task_index: 7 }), mcqaRow('c')].join('\n'));
    expect((await loadTasks(fine, getEnvironment('mcqa'))).rows).toHaveLength(3);
  });

  it('refuses a row nested too deeply for the recursive code after it, and takes one at the limit', async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    // The row object is level 1, so a field holding 999 nested arrays reaches the limit of 1,000.
    const atLimit = mcqaRow('ok').slice(0, -1) + `, "extra": ${nested(999)}}`;
    expect((await loadTasks(await taskFile(atLimit + '\n'), getEnvironment('mcqa'))).rows).toHaveLength(1);
    const deep = mcqaRow('deep').slice(0, -1) + `, "extra": ${nested(100_000)}}`;
    const deepInInput = JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'x' }] }, options: [{ A: 'x' }], expected_answer: 'A' }).replace(
      '"x"}]',
      `"x", "more": ${nested(1000)}}]`,
    );
    const err = await refusal(await taskFile([atLimit, deep, deepInInput].join('\n')));
    expect(err.details).toEqual([
      expect.stringMatching(/^line 2: extra: nested more than 1000 levels deep/),
      expect.stringMatching(/^line 3: responses_create_params: nested more than 1000 levels deep/),
    ]);
  });

  it('names the input item and field of a bad item, from the branch of the union it was meant for', async () => {
    const file = await taskFile(
      [
        mcqaRow([
          { role: 'user', content: 'fine' },
          { role: 'usr', content: 'hi' },
        ]),
        mcqaRow([{ type: 'function_call', call_id: 'c1', name: 'f' }]),
        mcqaRow([{ role: 'user', content: [{ text: 'no type' }] }]),
        mcqaRow(5),
      ].join('\n'),
    );
    const details = (await refusal(file)).details!;
    expect(details).toEqual([
      expect.stringMatching(/^line 1: responses_create_params\.input\[1\]\.role: .*expected one of "user"\|"assistant"\|"system"\|"developer", got "usr"$/),
      'line 2: responses_create_params.input[0].arguments: missing (expected string)',
      'line 3: responses_create_params.input[0].content[0].type: missing (expected string)',
      'line 4: responses_create_params.input: expected string or array, got number',
    ]);
  });

  it('prints the first 20 problems and writes all of them to a file it names', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => mcqaRow(i));
    const file = await taskFile(lines.join('\n') + '\n');
    const err = await refusal(file);
    expect(err.message).toMatch(/has 30 problem/);
    expect(err.details).toHaveLength(21);
    const where = /all 30 are listed in (\S+)$/.exec(err.details![20]!);
    expect(where).not.toBeNull();
    const listed = readFileSync(where![1]!, 'utf8').trimEnd().split('\n');
    expect(listed.map((l) => /^line (\d+):/.exec(l)?.[1])).toEqual(lines.map((_, i) => String(i + 1)));
    rmSync(where![1]!);
  });

  it('refuses a line that is not valid UTF-8 instead of replacing its bytes', async () => {
    // "caf" then a lone 0xff byte, which no UTF-8 text contains.
    const [before, after] = mcqaRow('cafX').split('X') as [string, string];
    const badLine = Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
    const file = await taskFile(Buffer.concat([Buffer.from(mcqaRow('ok') + '\n'), badLine, Buffer.from('\n' + mcqaRow('ok too') + '\n')]));
    const err = await refusal(file);
    expect(err.details).toEqual(['line 2: not valid UTF-8 (save the file as UTF-8)']);
    // The line still counts for --limit: the first row alone loads.
    expect((await loadTasks(file, getEnvironment('mcqa'), 1)).rows).toHaveLength(1);
  });
});
