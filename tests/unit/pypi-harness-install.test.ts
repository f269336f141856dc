// The PyPI install kind's refusal when no Python of the machine is new enough: a clear SETUP_FAILED naming
// the package, the floor and what was found, before anything is made (real Python processes are probed).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isGymError } from '../../src/errors';
import { installHarness } from '../../src/harnesses/install';
import { venvDir } from '../../src/harnesses/pypi-install';
import { getHarness } from '../../src/harnesses/registry';
import type { HarnessAdapter } from '../../src/harnesses/types';

describe('a Python harness whose package needs a newer Python than the machine has', () => {
  it('is refused naming the floor and the Pythons found too old, and no venv is made', async () => {
    const real = getHarness('terminus-2');
    // No Python is 3.99: every one the machine has is found, probed and reported as too old.
    const adapter: HarnessAdapter = { ...real, install: { kind: 'pypi', package: { name: 'harbor', version: '0.0.1' }, python: [3, 99] } };
    const refused = await installHarness(adapter).catch((e) => e);
    expect(isGymError(refused) && refused.code).toBe('SETUP_FAILED');
    expect(refused.message).toContain('harbor==0.0.1');
    expect(refused.message).toContain('needs Python ≥ 3.99');
    expect(refused.message).toMatch(/too old: .*\(3\.\d+\.\d+\)/);
    expect(refused.message).toContain('GYMFLOW_HARNESS_PYTHON');
    expect(existsSync(venvDir({ name: 'harbor', version: '0.0.1' }))).toBe(false);
  }, 60_000);
});
