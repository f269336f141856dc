// Runs the `gym` command in this process, the way `bin/gym.mjs` calls it, capturing what it prints:
// a subprocess's start-up costs seconds per call on a loaded machine.
import { vi } from 'vitest';
import { main } from '../../src/cli/main';

/** `env` is applied to process.env for the call (undefined unsets) and restored after it. */
export async function gymHere(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(env);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    apply(saved);
  }
}
