// A durable run driving a NeMo Gym-compatible resources server over HTTP (here Gymflow's own server
// for example_multi_step, which speaks the same routes): NeMo Gym's recorded model outputs replayed
// through it earn NeMo Gym's recorded rewards, and the session cookie lives in the persisted state.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnvironment } from '../../src/environments/registry';
import { remoteEnvironmentName } from '../../src/environments/names';
import { startEnvironmentServer } from '../../src/environments/server';
import { runConfig, runInProcess, tempDir, quietLogger } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step');

let server: TestServer;
let envServer: Awaited<ReturnType<typeof startEnvironmentServer>>;
beforeAll(async () => {
  server = await startTestServer();
  envServer = await startEnvironmentServer({ env: getEnvironment('example_multi_step'), logger: quietLogger });
});
afterAll(async () => {
  await envServer?.close();
  await server?.stop();
});

describe('the remote environment in a durable run', () => {
  it("reproduces NeMo Gym's recorded rewards through a resources server", async () => {
    const runDir = await tempDir('gymflow-remote-');
    const envName = remoteEnvironmentName(envServer.url, ['get_synonym_value', 'extract_synonym_values']);
    const config = runConfig({
      runDir,
      envName,
      inputFile: path.join(FIXTURES, 'example.jsonl'),
      model: { env: envName, replay_files: [path.join(FIXTURES, 'example_rollouts.jsonl')] },
    });
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(5);
    const records = readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
    // The remote server computed the extras NeMo Gym's verify returns.
    expect(records.every((r) => Array.isArray(r.parsed_synonym_values) && r.accuracy === true)).toBe(true);
    // The tool outputs in each recorded episode came from the server.
    for (const r of records) {
      const outputs = r.response.output.filter((i: { type: string }) => i.type === 'function_call_output');
      expect(outputs.length).toBeGreaterThan(0);
      expect(JSON.parse(outputs[0].output)).toHaveProperty('synonym_value');
    }
    // A recorded rollout's journal is dropped: its record holds the whole episode.
    expect(existsSync(path.join(runDir, 'work', '0-0.jsonl'))).toBe(false);
  });
});
