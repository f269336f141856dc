// `gym eval run` refuses bad input before it starts anything, with the line, field or flag named and
// no stack trace: malformed rows, a misspelt flag, an unknown environment, a missing file, an
// unreachable server. Run in this process (`main()`, as bin/gym.mjs calls it): nothing here needs a
// subprocess, whose start-up costs seconds per call.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';
import { reservePort } from '../helpers/ports';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const exampleRows = () => readFileSync(EXAMPLE, 'utf8').split('\n').filter(Boolean);

describe('gym eval run refuses bad input before starting anything', () => {
  let home: string;
  let out: string;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    home = await tempDir('gymflow-home-');
    out = path.join(await tempDir(), 'run');
    // No TEMPORAL_ADDRESS: a command that got as far as connecting would start the embedded server in `home`.
    env = { GYMFLOW_HOME: home, TEMPORAL_ADDRESS: undefined };
  });

  const nothingStarted = () => {
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  };

  it('names the line and field of malformed rows', async () => {
    const rows = exampleRows();
    const broken = JSON.parse(rows[2]!);
    delete broken.expected_synonym_values;
    broken.minefield_label_value = 'hot';
    const input = path.join(home, '..', `bad-${Date.now()}.jsonl`);
    await writeFile(input, [rows[0], '{"responses_create_params": ', JSON.stringify(broken)].join('\n') + '\n');
    const r = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', input, '--output', out], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/line 2: not valid JSON/);
    expect(r.stderr).toMatch(/line 3: expected_synonym_values: /);
    expect(r.stderr).toMatch(/line 3: minefield_label_value: /);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    nothingStarted();
  });

  it('names a misspelt flag, an unknown environment and a missing file', async () => {
    const typo = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--concurency', '3'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--concurency/);
    const unknownEnv = await gymHere(['eval', 'run', '--env', 'nope', '--model', 'mock', '--input', EXAMPLE, '--output', out], env);
    expect(unknownEnv.code).toBe(2);
    expect(unknownEnv.stderr).toMatch(/unknown environment "nope"/);
    const remote = await gymHere(['eval', 'run', '--env', 'remote', '--model', 'mock', '--input', EXAMPLE, '--output', out], env);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--env remote needs --remote-url/);
    const missing = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', '/no/such.jsonl', '--output', out], env);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/\/no\/such\.jsonl/);
    const badNumber = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '0'], env);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--num-repeats must be an integer ≥ 1/);
    nothingStarted();
  });

  it('says so when the configured Temporal server is unreachable', async () => {
    const port = await reservePort();
    const r = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`no Temporal server answers at 127.0.0.1:${port}`));
    nothingStarted();
  });
});
