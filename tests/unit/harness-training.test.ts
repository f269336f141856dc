// Training mode refuses a run played by an evaluation-only harness, naming it; other runs pass the check.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportTraining } from '../../src/training/export';

function runFolder(harness: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'harness-training-'));
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ config: { env: { name: 'swe_repair', harness: { name: harness } } } }));
  writeFileSync(path.join(dir, 'rollouts.jsonl'), '');
  return dir;
}

describe('export-training and harnesses', () => {
  it('refuses an evaluation-only harness (cline) with a clear error', async () => {
    await expect(exportTraining(runFolder('cline'), { output: path.join(os.tmpdir(), 'x.jsonl') })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('cline, which is evaluation-only'),
    });
  });

  it('exports a trainable harness run', async () => {
    const dir = runFolder('pi');
    await expect(exportTraining(dir, { output: path.join(dir, 'training.jsonl') })).resolves.toMatchObject({ exported: 0 });
  });
});
