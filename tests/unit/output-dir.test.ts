import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { checkOutputDir } from '../../src/runs/output-dir';
import { tempDir } from '../helpers/run';

function refusal(dir: string): GymError {
  try {
    checkOutputDir(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(GymError);
    expect((e as GymError).code).toBe('BAD_FLAG');
    return e as GymError;
  }
  throw new Error(`expected ${dir} to be refused`);
}

describe('the --output folder check', () => {
  it('makes missing folders and leaves no probe file behind', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'a', 'b', 'run');
    checkOutputDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    mkdirSync(path.join(root, 'kept'));
    writeFileSync(path.join(root, 'kept', 'manifest.json'), '{}');
    checkOutputDir(path.join(root, 'kept'));
    expect(readdirSync(path.join(root, 'kept'))).toEqual(['manifest.json']);
  });

  it('names a file given as the folder, or in its path', async () => {
    const file = path.join(await tempDir(), 'taken');
    writeFileSync(file, 'x');
    expect(refusal(file).message).toBe(`--output ${file} is a file, not a folder; choose a folder for the run`);
    expect(refusal(path.join(file, 'deeper', 'run')).message).toBe(`--output ${file}/deeper/run cannot be made: ${file} is a file, not a folder`);
  });
});
