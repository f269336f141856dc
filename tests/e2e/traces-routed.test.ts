// A routed run's traces (real Temporal dev server, in-process worker, trace files in the run folder): over
// three environments with one task fanned out to two agents, each rollout's root span names the environment
// and agent its own row was played by, as its record does, not the run's first.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveConfigRun } from '../../src/routing/from-config';
import { installTracing, type Tracing } from '../../src/tracing/provider';
import { SpanLine } from '../../src/tracing/span-line';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { quietLogger, runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const firstRow = (env: string) => JSON.parse(readFileSync(path.join(FIXTURES, 'nemo-gym', env, 'example.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>;
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

let server: TestServer;
let tracing: Tracing;
beforeAll(async () => {
  server = await startTestServer();
  tracing = installTracing('gymflow-test', quietLogger, { files: true, otlp: false })!;
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

it("labels each rollout's root span with its own row's environment and agent", async () => {
  const dir = await tempDir('gymflow-traces-routed-');
  const input = path.join(dir, 'input.jsonl');
  const rows = [
    { ...firstRow('mcqa'), task_source: 'mcqa_simple_agent' },
    { ...firstRow('example_multi_step'), task_source: 'example_multi_step' },
    { ...firstRow('string_match'), task_source: 'string_match' },
  ];
  writeFileSync(input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const routed = await resolveConfigRun({
    files: [path.join(FIXTURES, 'routing/three-environments.yaml')],
    overrides: ['+agent_map={string_match: [string_match_simple_agent, string_match_second_agent]}'],
    envYaml: '/dev/null',
    cwd: PACKAGE_ROOT,
    env: {},
    input,
  });
  const tasks = path.join(dir, 'tasks.jsonl');
  writeFileSync(tasks, routed.lines.join('\n') + '\n');
  const runDir = path.join(dir, 'run');
  const result = await runInProcess(server, runConfig({ runDir, envName: 'mcqa', inputFile: tasks }));
  expect(result.metrics.rollouts_recorded).toBe(4);
  await tracing.flush();

  const spans = readdirSync(path.join(runDir, 'traces')).flatMap((f) => jsonl(path.join(runDir, 'traces', f)).map((l) => SpanLine.parse(l)));
  const records = jsonl(path.join(runDir, 'rollouts.jsonl'));
  const expected = records.map((r) => `${r._ng_rollout_id} ${r._gf_environment.name} ${r.agent_ref.name}`);
  // The run's rows are what routing made of them: three environments, four agents.
  expect(new Set(records.map((r) => r._gf_environment.name)).size).toBe(3);
  expect(new Set(records.map((r) => r.agent_ref.name)).size).toBe(4);
  const roots = spans.filter((s) => !s.parent_span_id && s.name.startsWith('rollout '));
  const attr = (s: SpanLine, k: string) => s.attributes[k];
  expect(roots.map((s) => `${s.name.slice('rollout '.length)} ${attr(s, 'gymflow.environment')} ${attr(s, 'gymflow.agent')}`).sort()).toEqual(expected.sort());
}, 300_000);
