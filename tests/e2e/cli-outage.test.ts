// `gym eval run` through a Temporal outage, as a user sees it: the real command as a subprocess, its
// in-process worker, and a real dev server SIGKILLed mid-run. It waits, says so, and finishes the run
// when the server is back; when the server stays away it ends at --reconnect-timeout with a resume hint.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gymLive } from '../helpers/gym-cli';
import { tempDir } from '../helpers/run';
import { startTestServer } from '../helpers/temporal-server';
import { stopDevServer } from '../../src/temporal/dev-server';

const EXAMPLE = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const TASKS = readFileSync(EXAMPLE, 'utf8').split('\n').filter(Boolean).length;
const REPEATS = 8;

const recordedIds = (out: string): string[] => {
  const file = path.join(out, 'rollouts.jsonl');
  if (!existsSync(file)) return [];
  // Read while the run writes: a line is only complete once its newline is there.
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l)._ng_rollout_id);
};

const runArgs = (out: string, extra: string[] = []) => [
  'eval',
  'run',
  '--env',
  'example_multi_step',
  '--model',
  'mock',
  '--input',
  EXAMPLE,
  '--output',
  out,
  '--num-repeats',
  String(REPEATS),
  '--concurrency',
  '2',
  '--mock-latency-ms',
  '200',
  ...extra,
];

describe('gym eval run through a Temporal outage', () => {
  it('reconnects after the server comes back and records every rollout exactly once', async () => {
    const server = await startTestServer();
    try {
      const out = path.join(await tempDir(), 'outage');
      const gym = gymLive(runArgs(out), { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, 600_000);
      await gym.until(() => recordedIds(out).length >= 3, 'the first rollouts');
      await stopDevServer(server.dir, 'SIGKILL');
      // The outage lasts until the command has noticed it: longer than the client's own ~15 s of retries.
      await gym.until(() => /lost the Temporal server/.test(gym.stdout()), 'the command to notice the lost server');
      expect(recordedIds(out).length).toBeLessThan(TASKS * REPEATS);
      await server.restart();
      const code = await gym.exited;

      expect(code, gym.stderr().slice(-3000)).toBe(0);
      const stdout = gym.stdout();
      expect(stdout.match(new RegExp(`lost the Temporal server at ${server.address}; reconnecting \\(the run is safe\\)`, 'g'))).toHaveLength(1);
      expect(stdout).toMatch(new RegExp(`reconnected to the Temporal server at ${server.address}`));
      expect(stdout).toMatch(new RegExp(`rollouts: ${TASKS * REPEATS}/${TASKS * REPEATS} recorded, 0 failed`));
      const ids = recordedIds(out);
      expect(ids).toHaveLength(TASKS * REPEATS);
      expect(new Set(ids).size).toBe(TASKS * REPEATS);
      expect(gym.stderr()).not.toMatch(/unexpected error/);
      expect(gym.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      await server.stop();
    }
  }, 600_000);

  it('gives up at --reconnect-timeout with UNREACHABLE and the resume hint when the server stays away', async () => {
    const server = await startTestServer();
    try {
      const out = path.join(await tempDir(), 'outage-for-good');
      const gym = gymLive(runArgs(out, ['--reconnect-timeout', '5']), { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir }, 240_000);
      await gym.until(() => recordedIds(out).length >= 3, 'the first rollouts');
      await stopDevServer(server.dir, 'SIGKILL');
      // gymLive kills the command at 240 s, far above detection (~15 s) + the timeout (5 s) + one connect
      // attempt (10 s), so only a hang ends without the exit status asserted here.
      const code = await gym.exited;

      expect(code).toBe(5);
      expect(gym.stdout()).toMatch(/lost the Temporal server/);
      expect(gym.stderr()).toMatch(new RegExp(`gym: lost the Temporal server at ${server.address}, and it did not come back within 5 s`));
      expect(gym.stderr()).toContain(`gym eval resume ${out}`);
      expect(gym.stderr()).not.toMatch(/unexpected error/);
      expect(gym.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      await server.stop();
    }
  }, 400_000);
});
