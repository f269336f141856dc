// `gym eval run --agent-type` on a real run: a NeMo Gym configuration written for the simple agent, its
// swe_repair rows played instead by the real Pi CLI (installed by `gym setup --harnesses`, as .ci/run does)
// in a local sandbox, with the mock model scripting its tool use and the task's hidden tests deciding.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';
import { harnessRunDir, harnessRunEnv } from '../helpers/harness-run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const CONFIG = path.resolve(import.meta.dirname, '../fixtures/agent-type/swe-and-mcqa.yaml');
const SWE_TASKS = path.join(PACKAGE_ROOT, 'src/environments/swe_repair/data/example.jsonl');

describe('gym eval run --agent-type pi_agent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("plays the configuration's swe_repair rows with the Pi harness, each scored by its hidden tests", async () => {
    const dir = await harnessRunDir('gymflow-agent-type-');
    const out = path.join(dir, 'run');
    const env = harnessRunEnv(server, dir);
    const args = [
      'eval',
      'run',
      '--config',
      CONFIG,
      '--env-yaml',
      '/dev/null',
      '--input',
      SWE_TASKS,
      '--limit',
      '2',
      '--agent-name',
      'swe_repair_agent',
      '--agent-type',
      'pi_agent',
      '--model',
      'mock',
      '--output',
      out,
    ];
    const r = await gymHere(args, env);
    expect(r.code, r.stderr).toBe(0);
    const records = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(2);
    for (const rec of records) {
      expect(rec._gf_harness.name).toBe('pi');
      expect(rec.agent_ref.name).toBe('swe_repair_agent');
      expect(rec.reward).toBe(1);
    }
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.config.durability).toBe('rollout');
    expect(manifest.config.env.harness.name).toBe('pi');
  }, 600_000);
});
