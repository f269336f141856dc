// Runs the `gym` command in this process, the way `bin/gym.mjs` calls it, capturing what it prints:
// a subprocess's start-up costs seconds per call on a loaded machine.
import { vi } from 'vitest';
import { main } from '../../src/cli/main';

export async function gymHere(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
