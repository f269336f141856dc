// Reading a run folder for the report: a damaged line is an error that names its file, line and field,
// never a silently smaller report.
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRun } from '../../src/report/read-run';
import { writeSyntheticRun } from '../helpers/synthetic-run';

async function run(): Promise<{ dir: string; rollouts: string; first: Record<string, unknown> }> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gymflow-read-')), 'run');
  await writeSyntheticRun(dir, { tasks: 2, repeats: 2, diagnostics: true });
  const rollouts = path.join(dir, 'rollouts.jsonl');
  return { dir, rollouts, first: JSON.parse((await readFile(rollouts, 'utf8')).split('\n')[0]!) };
}

describe('readRun refuses damaged records', () => {
  it('names a line that is not JSON', async () => {
    const { dir, rollouts } = await run();
    await appendFile(rollouts, '{"reward": \n');
    await expect(readRun(dir)).rejects.toThrow(/rollouts\.jsonl line 5: not valid JSON/);
  });

  it('names the field of a record that is not a rollout', async () => {
    const { dir, rollouts, first } = await run();
    await writeFile(rollouts, JSON.stringify({ ...first, reward: 'high' }) + '\n');
    await expect(readRun(dir)).rejects.toThrow(/rollouts\.jsonl line 1: reward: /);
  });

  it('names a malformed diagnostics field', async () => {
    const { dir, rollouts, first } = await run();
    await writeFile(rollouts, JSON.stringify({ ...first, _gf_diagnostics: { ...(first._gf_diagnostics as object), output_tokens: 'many' } }) + '\n');
    await expect(readRun(dir)).rejects.toThrow(/rollouts\.jsonl line 1: _gf_diagnostics\.output_tokens: /);
  });

  it('says when a folder is not a run', async () => {
    await expect(readRun(await mkdtemp(path.join(os.tmpdir(), 'gymflow-read-')))).rejects.toThrow(/is not a run folder/);
  });
});
