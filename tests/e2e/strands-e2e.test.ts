// The Strands agent (@strands-agents/sdk, installed by `gym setup --harnesses strands`, as .ci/run does)
// plays tool environments in durable runs: a real Temporal dev server, the real gateway and mock model
// (which plays each environment's oracle through the tools the request offers), our runner on the
// pinned Node, every model call through the rollout's gateway URL, every tool call run by the worker, and
// the environment's own verify giving the reward. Then its failure paths: the gateway's cap; a tool that
// fails in a durable run (a FAKE Chat Completions upstream scripts the call, a FAKE resources server drops
// it); and, on the runner alone, a tool that throws and a model that never answers.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runStrandsRollout } from '../../src/agents/strands/run';
import { defineEnvironment } from '../../src/environments/define';
import { reply } from '../../src/environments/types';
import { getHarness } from '../../src/harnesses/registry';
import { TaskRow } from '../../src/schemas/task';
import { parseModelSpec } from '../../src/gateway/spec';
import { exportTraining } from '../../src/training/export';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';
import { harnessRunEnv } from '../helpers/harness-run';
import { backgroundRuns, harnessTraces, jsonlIfPresent, modelCalls, runOutcome } from '../helpers/run-folder';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const MULTI_STEP = path.join(PACKAGE_ROOT, 'src/environments/example_multi_step/data/example.jsonl');
const WORKPLACE = path.join(PACKAGE_ROOT, 'src/environments/workplace_assistant/data/example.jsonl');
const REASONING = path.join(PACKAGE_ROOT, 'src/environments/reasoning_gym/data/example.jsonl');
const COUNTER = path.join(PACKAGE_ROOT, 'src/environments/example_session_state_mgmt/data/example.jsonl');
const TEST_TIMEOUT_MS = 300_000;

interface Played {
  runDir: string;
  records: any[];
  failures: any[];
  traces: any[];
}

async function play(envName: string, inputFile: string, opts: { limit?: number; maxModelCalls?: number; accuracy?: number } = {}): Promise<Played> {
  const runDir = await tempDir(`gymflow-strands-${envName}-`);
  const harness = { name: 'strands', timeout_ms: 120_000, ...(opts.maxModelCalls ? { max_model_calls: opts.maxModelCalls } : {}) };
  const config = runConfig({ runDir, env: { name: envName, harness } as any, inputFile, limit: opts.limit ?? 1, durability: 'rollout', model: { accuracy: opts.accuracy ?? 1 }, maximumAttempts: 1 });
  await runInProcess(server, config);
  return { runDir, ...runOutcome(runDir), traces: harnessTraces(runDir) };
}

let server: TestServer;
const plays = backgroundRuns<Played>();
const start = plays.start;

beforeAll(async () => {
  server = await startTestServer();
  start('multi_step', () => play('example_multi_step', MULTI_STEP, { limit: 2 }));
  start('workplace', () => play('workplace_assistant', WORKPLACE));
  start('counter', () => play('example_session_state_mgmt', COUNTER));
  start('text', () => play('reasoning_gym', REASONING));
  start('wrong', () => play('example_multi_step', MULTI_STEP, { accuracy: 0 }));
  // example_multi_step needs a call per synonym, the extraction and a last answer: two calls are not enough.
  start('cap', () => play('example_multi_step', MULTI_STEP, { maxModelCalls: 2 }));
}, 120_000);
afterAll(async () => {
  await plays.settled();
  await server?.stop();
}, TEST_TIMEOUT_MS);

describe('strands in a durable run', () => {
  it(
    'plays example_multi_step through its tools; the environment verify rewards it; every call went through the gateway',
    async () => {
      const { runDir, records, failures, traces } = await plays.get('multi_step');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(2);
      for (const record of records) {
        expect(record.reward).toBe(1);
        expect(record.accuracy).toBe(true);
        expect(record._gf_harness).toMatchObject({ name: 'strands', version: '1.19.0', exit_code: 0 });
        const tools = record._gf_harness.tool_calls.map((c: any) => c.name);
        expect(tools).toContain('get_synonym_value');
        expect(tools.at(-1)).toBe('extract_synonym_values');
        // The episode has the worker's tool outputs after the calls they answer, and ends with a message.
        const output = record.response.output;
        const call = output.find((i: any) => i.type === 'function_call' && i.name === 'get_synonym_value');
        const answer = output[output.indexOf(call) + 1];
        expect(answer).toMatchObject({ type: 'function_call_output', call_id: call.call_id });
        const synonym = JSON.parse(call.arguments).synonym as string;
        expect(JSON.parse(answer.output)).toEqual({ synonym_value: [...synonym].reduce((n, ch) => n + ch.codePointAt(0)!, 0) });
        expect(output.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
        // Every model call of the rollout is in the gateway's log, with token ids, and the record names them all.
        const logged = modelCalls(runDir).filter((c) => c.rollout_id === record._ng_rollout_id);
        expect(logged.length).toBe(output.filter((i: any) => i.type === 'function_call').length + 1);
        expect([...record._gf_model_call_ids].sort()).toEqual(logged.map((c) => c.call_id).sort());
        for (const c of logged) {
          expect(c.status).toBe(200);
          expect(c.route).toMatch(/chat/);
          expect(c.tokens.generation_token_ids.length).toBeGreaterThan(0);
        }
      }
      expect(traces).toHaveLength(2);
      for (const trace of traces) expect(trace).toMatchObject({ harness: 'strands', package: { name: '@strands-agents/sdk', version: '1.19.0' }, exitCode: 0, timedOut: false });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'its calls rebuild into one training response per episode',
    async () => {
      const { runDir, records } = await plays.get('multi_step');
      const out = path.join(runDir, 'training.jsonl');
      const summary = await exportTraining(runDir, { output: out });
      expect(summary.exported).toBe(records.length);
      expect(summary.masked).toBe(0);
      for (const line of jsonlIfPresent(out)) expect(line.masked).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'plays workplace_assistant, graded by its verify on the state its tools left',
    async () => {
      const { records, failures } = await plays.get('workplace');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0].reward).toBe(1);
      expect(records[0]._gf_harness.tool_calls.length).toBeGreaterThan(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'plays example_session_state_mgmt, whose verify reads only the session state the worker kept for its tools',
    async () => {
      const { records, failures } = await plays.get('counter');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0].reward).toBe(1);
      expect(records[0]._gf_harness.tool_calls.map((c: any) => c.name)).toContain('increment_counter');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'plays a text task (reasoning_gym, no tools): its final answer graded by the environment',
    async () => {
      const { records, failures } = await plays.get('text');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0].reward).toBe(1);
      expect(records[0]._gf_harness.tool_calls).toEqual([]);
      expect(records[0].response.output.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a wrong episode is graded 0 by the environment, not failed',
    async () => {
      const { records, failures } = await plays.get('wrong');
      expect(failures).toEqual([]);
      expect(records).toHaveLength(1);
      expect(records[0].reward).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a model that goes on past the cap is stopped by the gateway: CAP_EXCEEDED in the sidecar, no reward',
    async () => {
      const { runDir, records, failures } = await plays.get('cap');
      expect(records).toEqual([]);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ _ng_failure_class: 'cap_exceeded', _ng_failure_terminal: true, stage: 'tool' });
      expect(failures[0].message).toMatch(/stopped by the rollout's cap/);
      const logged = modelCalls(runDir);
      expect(logged.filter((c) => c.status === 200)).toHaveLength(2);
      expect(logged.some((c) => c.error?.code === 'rollout_cap_exceeded')).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * A FAKE Chat Completions server (the wire the SDK's OpenAI provider speaks, streamed): its first answer
 * calls `explode`, any later one says "done"; `hang` never answers. It stands in for a policy that asks
 * for a tool no mock oracle would call; what is under test is the runner, the SDK and the tool endpoint.
 */
async function fakeChat(mode: 'tool' | 'hang'): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      if (mode === 'hang') return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests === 1) {
        res.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_explode_1', type: 'function', function: { name: 'explode', arguments: '{}' } }] }, null));
        res.write(chunk({}, 'tool_calls'));
      } else {
        res.write(chunk({ role: 'assistant', content: 'done' }, null));
        res.write(chunk({}, 'stop'));
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const explodingEnv = defineEnvironment({
  name: 'strands_test_exploding_tool',
  description: 'One tool that throws: a tool error, which must fail the rollout rather than grade it.',
  taskSchema: TaskRow,
  tools: {
    explode: {
      args: z.object({}),
      run: () => {
        throw new Error('the explode tool blew up');
      },
    },
    calm: { args: z.object({}), run: (_args: unknown, { state }) => reply({ ok: true }, state) },
  },
  verify: () => ({ reward: 1 }),
});

const explodingTask = {
  responses_create_params: {
    input: [{ role: 'user', content: 'Call explode.' }],
    tools: [
      { type: 'function', name: 'explode', description: 'Throws.', parameters: { type: 'object', properties: {} }, strict: true },
      { type: 'function', name: 'calm', description: 'Answers ok.', parameters: { type: 'object', properties: {} }, strict: true },
    ],
  },
};

describe('the Strands runner on its own', () => {
  it(
    'a tool that throws ends the episode as a tool failure: the runner exits non-zero and asks the model nothing more',
    async () => {
      const fake = await fakeChat('tool');
      try {
        const run = await runStrandsRollout({ harness: getHarness('strands'), env: explodingEnv, task: explodingTask, baseUrl: fake.url, apiKey: 'sk-fake', model: 'fake', timeoutMs: 120_000 });
        expect(run.toolFailure?.message).toBe('the explode tool blew up');
        expect(run.exitCode).toBe(1);
        expect(run.timedOut).toBe(false);
        expect(run.toolCalls).toEqual([]);
        expect(fake.requests()).toBe(1);
        expect(run.stdoutTail).toMatch(/"type":"error","kind":"tool"/);
      } finally {
        await fake.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a model that never answers: the runner is killed at its deadline',
    async () => {
      const fake = await fakeChat('hang');
      try {
        const run = await runStrandsRollout({ harness: getHarness('strands'), env: explodingEnv, task: explodingTask, baseUrl: fake.url, apiKey: 'sk-fake', model: 'fake', timeoutMs: 15_000 });
        expect(run.timedOut).toBe(true);
        expect(run.exitCode).not.toBe(0);
        // On a loaded machine the runner may not have reached its first call by the deadline: at most one.
        expect(fake.requests()).toBeLessThanOrEqual(1);
      } finally {
        await fake.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

/**
 * A FAKE NeMo Gym resources server that seeds a session but drops the connection on its one tool's
 * route: the remote environment's tool then fails without an answer, which is a tool that threw.
 */
async function droppingResourcesServer(): Promise<{ url: string; toolCalls: () => number; close: () => Promise<void> }> {
  let toolCalls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/seed_session') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      toolCalls++;
      req.socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    toolCalls: () => toolCalls,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('gym eval run --agent strands', () => {
  it(
    'plays a tool environment from the command line; a sandboxed one is refused before anything starts, naming why',
    async () => {
      const dir = await tempDir('gymflow-strands-cli-');
      const env = harnessRunEnv(server, dir);
      const out = path.join(dir, 'run');
      const r = await gymHere(['eval', 'run', '--env', 'example_multi_step', '--agent', 'strands', '--model', 'mock', '--input', MULTI_STEP, '--limit', '1', '--output', out], env);
      expect(r.code, r.stderr).toBe(0);
      const [record] = jsonlIfPresent(path.join(out, 'rollouts.jsonl'));
      expect(record.reward).toBe(1);
      expect(record._gf_harness.name).toBe('strands');

      const refused = await gymHere(
        [
          'eval',
          'run',
          '--env',
          'swe_repair',
          '--agent',
          'strands',
          '--model',
          'mock',
          '--input',
          path.join(PACKAGE_ROOT, 'src/environments/swe_repair/data/example.jsonl'),
          '--output',
          path.join(dir, 'swe'),
        ],
        env,
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/--agent strands: .*it has no shell/);
      expect(existsSync(path.join(dir, 'swe', 'rollouts.jsonl'))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('strands in a durable run, a tool that fails', () => {
  it(
    'the rollout goes to the sidecar from the tool stage, never graded; the model was asked once, through the gateway',
    async () => {
      const fake = await fakeChat('tool');
      const resources = await droppingResourcesServer();
      const runDir = await tempDir('gymflow-strands-tool-error-');
      process.env.GYMFLOW_TEST_STRANDS_KEY = 'sk-fake';
      try {
        const inputFile = path.join(runDir, 'input.jsonl');
        writeFileSync(inputFile, JSON.stringify({ responses_create_params: { ...explodingTask.responses_create_params, tools: [explodingTask.responses_create_params.tools[0]] } }) + '\n');
        const env = { name: 'remote', remote: { url: resources.url, tools: ['explode'] }, harness: { name: 'strands', timeout_ms: 120_000 } };
        const base = runConfig({ runDir, env: env as any, inputFile, limit: 1, durability: 'rollout', maximumAttempts: 1 });
        await runInProcess(server, { ...base, model: parseModelSpec({ backend: 'openai', model: 'fake', base_url: fake.url, api_key_env: 'GYMFLOW_TEST_STRANDS_KEY' }) });
        expect(jsonlIfPresent(path.join(runDir, 'rollouts.jsonl'))).toEqual([]);
        const failures = jsonlIfPresent(path.join(runDir, 'failures.jsonl'));
        expect(failures).toHaveLength(1);
        expect(failures[0]).toMatchObject({ stage: 'tool', _ng_failure_class: 'tool_error' });
        expect(failures[0].message).toMatch(/explode/);
        expect(resources.toolCalls()).toBeGreaterThanOrEqual(1);
        expect(fake.requests()).toBe(1);
        const logged = modelCalls(runDir);
        expect(logged).toHaveLength(1);
        expect(logged[0].status).toBe(200);
        const [trace] = harnessTraces(runDir);
        expect(trace.tool_failure).toMatch(/explode/);
        expect(trace.exitCode).toBe(1);
      } finally {
        delete process.env.GYMFLOW_TEST_STRANDS_KEY;
        await resources.close();
        await fake.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
