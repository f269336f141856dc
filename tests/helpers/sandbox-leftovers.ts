// What a file of sandboxed runs must not leave behind: a sandbox of any provider labelled with one of its
// runs, or a scratch folder the harness runs mounted into their sandboxes.
import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { SandboxProvider } from '../../src/sandboxes/provider';

/**
 * Gives this test file's process (the pool forks one per file) a temp folder of its own, so the scratch folders
 * it counts are its own runs': files running beside it make theirs in the shared one.
 */
export function privateTmpdir(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-test-tmp-'));
  // As open as /tmp: a jail's user must reach the scratch folders made in it.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
}

/** The scratch folders in the temp folder now: taken before the runs, compared after. */
export const scratchFolders = (): Set<string> => new Set(readdirSync(os.tmpdir()).filter((n) => n.startsWith('gymflow-scratch-')));

export async function expectNothingLeftBehind(providers: readonly SandboxProvider[], runIds: readonly string[], scratchBefore: ReadonlySet<string>): Promise<void> {
  for (const run of runIds) for (const provider of providers) expect(await provider.list({ run })).toEqual([]);
  expect([...scratchFolders()].filter((n) => !scratchBefore.has(n))).toEqual([]);
}
