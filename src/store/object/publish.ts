// The client's side of a run in an object store: before the run starts, its manifest and input rows go into
// the store (so a worker on any machine can collate it), and once it has finished, the files its finalizer
// put there come into the client's --output folder, wherever the finalizer ran.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../../errors';
import { writeFileAtomic } from '../jsonl';
import { ObjectRunFiles, INPUT_OBJECT } from './run-objects';

/**
 * Checks the store can be used (a clear error now, not mid-run) and holds no other run, then puts the run's
 * manifest and input there. A store that holds this run (same identity) is its resume, from any machine.
 */
export async function publishRun(store: string, runDir: string, inputFile: string): Promise<void> {
  const files = new ObjectRunFiles(store);
  await files.store.check();
  const manifest = await readFile(path.join(runDir, 'manifest.json'));
  const identity = (JSON.parse(manifest.toString('utf8')) as { identity?: string }).identity;
  const there = await files.readJson<{ identity?: string; run_id?: string }>('manifest.json');
  if (there && there.identity !== identity) {
    throw new GymError(
      'CONFLICT',
      `${store} holds run "${there.run_id}" with a different configuration or dataset (identity ${there.identity}, now ${identity}): choose another --store prefix or --run-id`,
    );
  }
  await files.store.put('manifest.json', manifest);
  if (existsSync(inputFile)) await files.store.put(INPUT_OBJECT, await readFile(inputFile));
}

/** Brings the finished run's top-level files (results, metrics, health, reports) from the store into `runDir`. */
export async function fetchRunFiles(store: string, runDir: string): Promise<string[]> {
  const files = new ObjectRunFiles(store);
  const names = (await files.store.listFiles()).filter((n) => n !== INPUT_OBJECT);
  for (const name of names) {
    const bytes = await files.store.getBytes(name);
    if (bytes) await writeFileAtomic(path.join(runDir, name), Buffer.from(bytes).toString('utf8'));
  }
  return names;
}
