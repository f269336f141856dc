// `gym eval run` interrupted with Ctrl-C keeps the run, and `gym eval resume` finishes it to exactly one
// record per rollout, each call a subprocess as a user runs it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gym } from '../helpers/gym-cli';
import { useGymServer } from '../helpers/gym-server';
import { tempDir } from '../helpers/run';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');

describe('gym eval against a running server', () => {
  const env = useGymServer();

  it('keeps a run interrupted with Ctrl-C and resumes it to exactly one record per rollout', async () => {
    const out = path.join(await tempDir(), 'cli-resume');
    const args = ['eval', 'run', '--env', 'example_multi_step', '--model', 'mock', '--input', EXAMPLE, '--output', out, '--num-repeats', '6', '--concurrency', '2', '--mock-latency-ms', '400'];
    let interrupted = false;
    const first = await gym(args, env, {
      watch: (kill) => {
        const file = path.join(out, 'rollouts.jsonl');
        if (!interrupted && existsSync(file) && readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= 3) {
          interrupted = true;
          kill();
        }
      },
    });
    expect(first.code).toBe(130);
    expect(first.stdout).toMatch(/gym eval resume/);
    const before = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    expect(before).toBeLessThan(30);

    const status = await gym(['eval', 'status', out], env);
    expect(status.stdout).toMatch(/running/);
    // The run's only worker died with the CLI: status says so instead of waiting out the server's query deadline.
    expect(status.stdout).toMatch(/progress: no worker answered within 5 s/);

    const resumed = await gym(['eval', 'resume', out, '--concurrency', '6'], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/rollouts: 30\/30 recorded/);
    const ids = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)._ng_rollout_id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toHaveLength(30);
  }, 480_000); // a dozen `gym` subprocesses: each start takes seconds on a loaded machine
});
