// PinchBench end to end, as NeMo Gym runs it: the real OpenClaw CLI (installed by `gym setup --harnesses`,
// as .ci/run does) plays the automated PinchBench tasks in containers of a private dockerd (needs root, as
// the docker sandbox tests do), its workspace seeded with each task's files, under a durable run with a real
// Temporal dev server, the gateway and the mock model; pinchbench's verify grades what OpenClaw wrote.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelSpec } from '../../src/gateway/spec';
import type { DockerProvider } from '../../src/sandboxes/docker/provider';
import { sandboxProvider } from '../../src/sandboxes/registry';
import { startTestDockerEngine, type TestDockerEngine } from '../helpers/docker-engine';
import { startFakeVLLM, type FakeVLLM } from '../helpers/fake-vllm-server';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const TASKS = path.resolve(import.meta.dirname, '../../src/environments/pinchbench/data/example.jsonl');
/** OpenClaw spends tens of CPU-seconds before its first call: generous on a shared 2-core machine. */
const HARNESS_TIMEOUT_MS = 420_000;
const TEST_TIMEOUT_MS = 1_200_000;

const jsonl = (file: string): any[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

let server: TestServer;
let docker: TestDockerEngine;
let provider: DockerProvider;
/** A FAKE judge (a vLLM-compatible server on loopback): the judge would be a hosted model. */
let judge: FakeVLLM;
const dockerHostBefore = process.env.DOCKER_HOST;

beforeAll(async () => {
  server = await startTestServer();
  judge = await startFakeVLLM();
  docker = await startTestDockerEngine();
  // The in-process worker's docker provider finds the engine as any worker would: DOCKER_HOST.
  process.env.DOCKER_HOST = `unix://${docker.socketPath}`;
  provider = (await sandboxProvider('docker', { socketPath: docker.socketPath })) as DockerProvider;
}, 300_000);
afterAll(async () => {
  if (dockerHostBefore === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHostBefore;
  await provider?.close();
  await docker?.stop();
  await server?.stop();
  await judge?.close();
}, 120_000);

async function play(accuracy: number, judged = false) {
  const runDir = await tempDir('gymflow-pinchbench-e2e-');
  const env = { name: 'pinchbench', harness: { name: 'openclaw', sandbox: 'docker', sandbox_image: docker.image, timeout_ms: HARNESS_TIMEOUT_MS } };
  // The first three rows are the automated tasks (sanity, calendar, todo cleanup); the last two are judge-graded.
  const rows = readFileSync(TASKS, 'utf8').split('\n').filter(Boolean);
  const inputFile = path.join(runDir, 'input.jsonl');
  writeFileSync(inputFile, (judged ? rows.slice(3) : rows.slice(0, 3)).join('\n') + '\n');
  const base = runConfig({ runDir, env: env as any, inputFile, durability: 'rollout', model: { accuracy }, maximumAttempts: 1 });
  const config = judged ? { ...base, judgeModel: parseModelSpec({ backend: 'vllm', model: 'fake-judge', base_url: judge.url }) } : base;
  await runInProcess(server, config);
  const traces = existsSync(path.join(runDir, 'harness')) ? readdirSync(path.join(runDir, 'harness')).map((f) => JSON.parse(readFileSync(path.join(runDir, 'harness', f), 'utf8'))) : [];
  return { runDir, config, records: jsonl(path.join(runDir, 'rollouts.jsonl')), failures: jsonl(path.join(runDir, 'failures.jsonl')), traces };
}

describe('pinchbench played by OpenClaw in docker', () => {
  it(
    'writes each task’s file through its own write tool, seeded files in place; right play scores 1, wrong play leaves no file (and an empty sanity answer fails OpenClaw); no container is left',
    async () => {
      const reply = { content: 'Grading:\n```json\n{"scores": {"tone": 0.9, "structure": 0.7}, "total": 0.8, "notes": "fake judge"}\n```' };
      judge.script(reply, reply);
      const [right, wrong, judged] = await Promise.all([play(1), play(0), play(1, true)]);
      expect(right.failures).toEqual([]);
      expect(right.records).toHaveLength(3);
      // Wrong play answers the sanity prompt with nothing: OpenClaw itself gives up on an empty reply and exits 1,
      // a harness failure for the sidecar (never a zero reward); the two file tasks are recorded.
      expect(wrong.failures).toHaveLength(1);
      expect(wrong.failures[0]).toMatchObject({ _ng_task_index: 0, _ng_failure_class: 'env_error' });
      expect(wrong.failures[0].message).toContain("Agent couldn't generate a response");
      expect(wrong.records).toHaveLength(2);
      for (const run of [right, wrong]) {
        for (const r of run.records) expect(r._gf_harness).toMatchObject({ name: 'openclaw', exit_code: 0 });
        for (const t of run.traces) expect(t.sandbox_labels.run).toBe(run.config.runId);
        expect(await provider.list({ run: run.config.runId })).toEqual([]);
      }
      const byTask = (records: any[]) => Object.fromEntries(records.map((r) => [r.task_id, r]));
      const good = byTask(right.records);
      for (const id of ['task_sanity', 'task_calendar', 'task_todo_list_cleanup']) expect({ id, reward: good[id].reward, reason: good[id].failure_reason }).toEqual({ id, reward: 1, reason: null });
      // The mock cleans the list it was shown by OpenClaw's read tool (no file without it): full marks mean the
      // seeded todos.json was in the container's workspace.
      const todo = good.task_todo_list_cleanup;
      expect(todo.workspace_files).toEqual(['todos.json', 'todos_cleaned.json']);
      expect(todo.response.output.filter((i: any) => i.type === 'function_call').map((i: any) => i.name)).toEqual(['read', 'write']);
      const write = good.task_calendar.response.output.find((i: any) => i.type === 'function_call');
      expect(write.name).toBe('write');
      expect(JSON.parse(write.arguments).content).toContain('SUMMARY:Project Sync');
      expect(good.task_calendar.response.output.some((i: any) => i.type === 'function_call_output' || i.type === 'message')).toBe(true);

      const bad = byTask(wrong.records);
      expect(bad.task_calendar).toMatchObject({ reward: 0, failure_reason: 'output_file_missing' });
      expect(bad.task_todo_list_cleanup).toMatchObject({ reward: 0, failure_reason: 'output_file_missing' });

      // The judge-graded tasks: OpenClaw writes the file, the run's judge model (the FAKE) is asked once per task
      // with PinchBench's prompt, which shows the agent's write call; its total is the reward.
      expect(judged.failures).toEqual([]);
      const graded = byTask(judged.records);
      for (const id of ['task_daily_summary', 'task_email']) {
        expect(graded[id]).toMatchObject({ grading_type: 'llm_judge', reward: 0.8, grading_breakdown: { tone: 0.9, structure: 0.7 }, grading_notes: 'fake judge' });
      }
      const prompts = judge.requests.filter((r) => r.path.includes('/chat/completions')).map((r) => JSON.stringify(r.body));
      expect(prompts).toHaveLength(2);
      expect(prompts.some((p) => p.includes('Tool: write({\\"path\\": \\"email_draft.txt\\"'))).toBe(true);
      expect(prompts.some((p) => p.includes('Tool: read({\\"path\\": \\"research/market_analysis.txt\\"})'))).toBe(true);
      expect(await provider.list({ run: judged.config.runId })).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
