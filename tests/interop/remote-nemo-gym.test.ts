// Gymflow's `remote` environment against NeMo Gym 0.7.0's own resources servers, started from its venv: NeMo
// Gym's recorded model outputs replayed through a durable run are graded by NeMo Gym's own code with, per task,
// the reward Gymflow's native port gives the same episode (its tool calls replayed, then verify).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNemoGymServer, type NemoGymServer } from '../../src/environments/remote/launch';
import { getEnvironment } from '../../src/environments/registry';
import { remoteEnvironmentName } from '../../src/environments/names';
import { runTool } from '../../src/environments/tools';
import { functionCalls, ResponseObject } from '../../src/schemas/responses';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { interopTitle, nemoGymVenv } from './nemo-gym-venv';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
// Stateless grading, a per-session counter the tools change, and a tool-using one. (Not example_single_tool_call:
// NeMo Gym 0.7.0 rewards only episodes that call get_weather, where the v0.6.0 semantics Gymflow ports reward every one.)
const SERVERS = ['mcqa', 'example_session_state_mgmt', 'example_multi_step'] as const;

const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

let temporal: TestServer;
const servers = new Map<string, NemoGymServer>();
beforeAll(async () => {
  if (!nemoGymVenv) return;
  const started = await Promise.all([startTestServer(), ...SERVERS.map((server) => startNemoGymServer({ server }))]);
  temporal = started[0] as TestServer;
  SERVERS.forEach((name, i) => servers.set(name, started[i + 1] as NemoGymServer));
}, 600_000);
afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.close()));
  await temporal?.stop();
});

/** One durable run of `envName` replaying NeMo Gym's recorded rollouts of `fixture`; its records by task. */
async function play(fixture: string, envName: string) {
  const runDir = await tempDir(`gymflow-interop-${fixture}-`);
  const config = runConfig({
    runDir,
    envName,
    inputFile: path.join(FIXTURES, fixture, 'example.jsonl'),
    model: { env: envName, replay_files: [path.join(FIXTURES, fixture, 'example_rollouts.jsonl')] },
  });
  const result = await runInProcess(temporal, config);
  return { result, records: readJsonl(path.join(runDir, 'rollouts.jsonl')).sort((a, b) => a._ng_task_index - b._ng_task_index) };
}

/** What Gymflow's own port of the environment gives a recorded episode: its tool calls replayed in a fresh session, then verify. */
async function nativeReward(name: string, record: Record<string, any>): Promise<number> {
  const env = getEnvironment(name);
  const task = env.taskSchema.parse(record);
  let state = await env.seedSession(task);
  const response = ResponseObject.parse(record.response);
  for (const call of functionCalls(response.output)) state = (await runTool(env, task, state, call.name, call.arguments)).state;
  return (await env.verify(task, response, { state })).reward;
}

describe.skipIf(!nemoGymVenv).concurrent(interopTitle("the remote environment on NeMo Gym's own resources servers"), () => {
  it.each(SERVERS)('%s: every rollout verified by the NeMo Gym server, with the native reward', async (name) => {
    const server = servers.get(name)!;
    const remote = await play(name, remoteEnvironmentName(server.url, server.tools));
    // No rollout failed: NeMo Gym's pydantic validation accepted every /verify request.
    expect(remote.result.metrics.rollouts_failed).toBe(0);
    expect(remote.records).toHaveLength(5);
    const native = await Promise.all(remote.records.map((r) => nativeReward(name, r)));
    expect(remote.records.map((r) => r.reward)).toEqual(native);
    // Not every episode scored alike, so agreement is not two graders both answering 0.
    expect(remote.records.some((r) => r.reward === 1)).toBe(true);
  });

  it('the tool routes are read from the server', () => {
    expect(servers.get('example_session_state_mgmt')!.tools.sort()).toEqual(['get_counter_value', 'increment_counter']);
    expect(servers.get('example_multi_step')!.tools.sort()).toEqual(['extract_synonym_values', 'get_synonym_value']);
    expect(servers.get('mcqa')!.tools).toEqual([]);
  });
});
