// A dataset found valid is checked once per process while its file stays the same, and again (refused, or
// hashed anew) as soon as it is rewritten: the trigger API sent one dataset many times reads it once.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateRunInput } from '../../src/runs/client';
import { runConfig, tempDir } from '../helpers/run';

const MCQA = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');

describe('validateRunInput', () => {
  it('answers a file it checked before with its hash, and checks a rewritten file again', async () => {
    const dir = await tempDir('gymflow-validate-');
    const input = path.join(dir, 'tasks.jsonl');
    const rows = readFileSync(MCQA, 'utf8').trim().split('\n');
    await writeFile(input, rows.join('\n') + '\n');
    const config = runConfig({ runDir: path.join(dir, 'run'), envName: 'mcqa', inputFile: input });
    const first = await validateRunInput(config);
    expect(await validateRunInput(config)).toBe(first);
    // The same file checked with another limit is another dataset.
    expect(await validateRunInput({ ...config, limit: 1 })).not.toBe(first);

    await writeFile(input, [...rows, '{"not": "an mcqa task"}'].join('\n') + '\n');
    await expect(validateRunInput(config)).rejects.toThrow(/1 problem/);

    await writeFile(input, rows.slice(1).join('\n') + '\n');
    const rewritten = await validateRunInput(config);
    expect(rewritten).not.toBe(first);
  });
});
