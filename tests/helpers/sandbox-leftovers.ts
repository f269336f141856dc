// What a file of sandboxed runs must not leave behind: a sandbox of any provider labelled with one of its
// runs, or a scratch folder the harness runs mounted into their sandboxes.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { expect } from 'vitest';
import type { SandboxProvider } from '../../src/sandboxes/provider';

/** The scratch folders in the temp folder now: taken before the runs, compared after. */
export const scratchFolders = (): Set<string> => new Set(readdirSync(os.tmpdir()).filter((n) => n.startsWith('gymflow-scratch-')));

export async function expectNothingLeftBehind(providers: readonly SandboxProvider[], runIds: readonly string[], scratchBefore: ReadonlySet<string>): Promise<void> {
  for (const run of runIds) for (const provider of providers) expect(await provider.list({ run })).toEqual([]);
  expect([...scratchFolders()].filter((n) => !scratchBefore.has(n))).toEqual([]);
}
