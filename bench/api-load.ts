// The trigger API under load: `gym api serve --no-worker` as its own process, and a `gym worker start` beside
// it playing the runs (so rollouts do not share the API's event loop), on a test dev server;
// N concurrent submissions (each its own request id and run), the same request id N times at once (exactly
// one run must start), then status polls at a fixed rate (open loop) over those runs; p50/p99 of each. The same
// bursts against a bare node:http server give the floor on this machine at that moment (it is shared).
//   node --import tsx bench/api-load.ts --submissions 100 --poll-rate 1000 --poll-seconds 10
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { GYM } from '../tests/helpers/gym-cli';
import { spawnApiServe } from '../tests/helpers/api-serve';
import { tempDir } from '../tests/helpers/run';
import { startTestServer } from '../tests/helpers/temporal-server';
import { printResults, type CaseResult } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';
import { threadCpuMs } from './lib/processes';

const USAGE = 'usage: node --import tsx bench/api-load.ts [flags]';
const INPUT = path.resolve(import.meta.dirname, '../src/environments/mcqa/data/example.jsonl');
const TOKEN = 'bench-api-load-token-0123456789';

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The server's CPU per request over a case: all its threads', and its event loop's (what a burst waits on). */
function perRequest(before: { main: number; all: number }, after: { main: number; all: number }, requests: number): { api_cpu_ms_each: number; loop_cpu_ms_each: number } {
  return { api_cpu_ms_each: round((after.all - before.all) / requests), loop_cpu_ms_each: round((after.main - before.main) / requests) };
}

/** A bare node:http server that reads a POST's JSON body and answers 201 with a small JSON, as the API does, and nothing else. */
const FLOOR_SERVER = `
const http = require('node:http');
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const text = JSON.stringify({ run_id: body.run_id, workflow_id: 'gymflow-run-' + body.run_id, run_dir: '/runs/' + body.run_id, created: true, request_id: req.headers['idempotency-key'] });
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), location: '/v1/runs/' + body.run_id });
    res.end(text);
  });
}).listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port); });
`;

function latencyCase(name: string, params: Record<string, unknown>, latencies: number[], seconds: number, extra: Record<string, number>, load: { before: number; after: number }): CaseResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const run = {
    units: latencies.length,
    seconds: round(seconds),
    per_second: round(latencies.length / seconds),
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted.at(-1) ?? Number.NaN),
    ...extra,
  };
  process.stderr.write(`${name}: ${JSON.stringify(run)}\n`);
  return { case: name, unit: 'requests', params, repeats: 1, median: run, runs: [run], load };
}

async function main(): Promise<void> {
  const flags = parseFlags(USAGE, {
    submissions: { kind: 'int', default: 100, min: 1, help: 'concurrent POST /v1/runs, each its own request id and run' },
    'same-key': { kind: 'int', default: 100, min: 1, help: 'concurrent POST /v1/runs with one request id' },
    'poll-rate': { kind: 'int', default: 1000, min: 1, help: 'GET /v1/runs/:id per second, open loop' },
    'poll-seconds': { kind: 'number', default: 10, min: 1, help: 'how long to poll' },
    'profile-api': { kind: 'string', default: '', help: "write the API process's CPU profile (node --cpu-prof) into this folder" },
  });
  const temporal = await startTestServer();
  const runsDir = await tempDir('gymflow-bench-api-runs-');
  const stateDir = await tempDir('gymflow-bench-api-state-');
  const tokenFile = path.join(stateDir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const env = { ...process.env, TEMPORAL_ADDRESS: temporal.address, GYMFLOW_LOG_LEVEL: 'error' };
  const profile = flags['profile-api'] ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', path.resolve(flags['profile-api'])] : [];
  const api = await spawnApiServe(['--port', '0', '--no-worker', '--token-file', tokenFile, '--runs-dir', runsDir, '--state-dir', stateDir], env, profile);
  const worker = spawn(process.execPath, [GYM, 'worker', 'start', '--task-queue', 'gymflow-api'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const pool = new Pool(api.url, { connections: 128, pipelining: 1 });
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const call = async (method: 'GET' | 'POST', route: string, body?: unknown, extra: Record<string, string> = {}) => {
      const t0 = performance.now();
      const res = await pool.request({ method, path: route, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.body.text();
      return { ms: performance.now() - t0, status: res.statusCode, json: JSON.parse(text) as Record<string, unknown> };
    };
    // The answer comes once the request is recorded; its workflow starts just after.
    const untilStarted = async (id: string) => {
      while ((await call('GET', `/v1/runs/bench-${id}`)).json.status === 'starting') await new Promise((r) => setTimeout(r, 100));
    };
    const untilEnded = async (id: string) => {
      while (['starting', 'running', 'paused'].includes((await call('GET', `/v1/runs/bench-${id}`)).json.status as string)) await new Promise((r) => setTimeout(r, 100));
    };
    const run = (id: string) => ({ env: 'mcqa', model: 'mock', input: INPUT, limit: 1, num_repeats: 1, run_id: `bench-${id}` });
    const cases: CaseResult[] = [];

    const apiPid = api.child.pid!;
    /**
     * N submissions at once, each on a connection of its own (a fresh pool), each its own request id and run;
     * resolves once every one of their runs has ended, so what follows shares the 2 cores with neither their starts
     * nor their rollouts.
     */
    const burst = async (name: string, ids: string[], server: { url: string; pid: number; runs: boolean } = { url: api.url, pid: apiPid, runs: true }) => {
      const fresh = new Pool(server.url, { connections: ids.length + 1, pipelining: 1 });
      const post = async (id: string) => {
        const t = performance.now();
        const res = await fresh.request({ method: 'POST', path: '/v1/runs', headers: { ...headers, 'idempotency-key': id }, body: JSON.stringify(run(id)) });
        await res.body.text();
        return { ms: performance.now() - t, status: res.statusCode };
      };
      const before = os.loadavg()[0]!;
      const cpuBefore = threadCpuMs(server.pid);
      const t = performance.now();
      const answers = await Promise.all(ids.map(post));
      const seconds = (performance.now() - t) / 1000;
      const cpu = perRequest(cpuBefore, threadCpuMs(server.pid), ids.length);
      await fresh.close();
      cases.push(
        latencyCase(
          name,
          { concurrent: ids.length },
          answers.map((r) => r.ms),
          seconds,
          { failed: answers.filter((r) => r.status !== 201).length, ...cpu },
          { before, after: os.loadavg()[0]! },
        ),
      );
      if (server.runs) for (const id of ids) await untilEnded(id);
    };

    // One submission answered first: no burst measures the loading of modules.
    await call('POST', '/v1/runs', run('warm-up'), { 'idempotency-key': 'bench-warm-up' });
    await untilEnded('warm-up');
    const n = flags.submissions;
    await burst(
      'submissions, first burst',
      Array.from({ length: n }, (_, i) => `first-${i}`),
    );
    // A server in service has answered many requests: its code is compiled by then, as after the first burst.
    await burst(
      'submissions',
      Array.from({ length: n }, (_, i) => `${i}`),
    );
    // The same bursts against a bare node:http server: what answering them costs here and now with nothing else done.
    const floor = spawn(process.execPath, ['-e', FLOOR_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve) => floor.stdout.once('data', (d: Buffer) => resolve(String(d).trim())));
      for (const name of ['node:http floor, first burst', 'node:http floor']) {
        await burst(
          name,
          Array.from({ length: n }, (_, i) => `${name.length}-${i}`),
          { url, pid: floor.pid!, runs: false },
        );
      }
    } finally {
      floor.kill();
    }

    let load = os.loadavg()[0]!;
    let cpu0 = threadCpuMs(apiPid);
    let t0 = performance.now();
    const same = await Promise.all(Array.from({ length: flags['same-key'] }, () => call('POST', '/v1/runs', run('one-key'), { 'idempotency-key': 'bench-one-key' })));
    const sameSeconds = (performance.now() - t0) / 1000;
    const sameCpu = perRequest(cpu0, threadCpuMs(apiPid), flags['same-key']);
    const runIds = new Set(same.map((r) => r.json.run_id));
    const created = same.filter((r) => r.json.created === true).length;
    await untilStarted('one-key');
    const client = await temporal.client();
    let executions = 0;
    for await (const _ of client.workflow.list({ query: 'WorkflowId = "gymflow-run-bench-one-key"' })) executions++;
    cases.push(
      latencyCase(
        'same request id',
        { concurrent: flags['same-key'] },
        same.map((r) => r.ms),
        sameSeconds,
        { run_ids: runIds.size, created, executions, ...sameCpu },
        { before: load, after: os.loadavg()[0]! },
      ),
    );

    load = os.loadavg()[0]!;
    const total = Math.round(flags['poll-rate'] * flags['poll-seconds']);
    const polls: Promise<{ ms: number; status: number }>[] = [];
    cpu0 = threadCpuMs(apiPid);
    t0 = performance.now();
    // Open loop: request i is sent at i / rate seconds whatever the answers do, so a slow server shows as latency.
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / flags['poll-rate'];
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const start = performance.now();
      polls.push(call('GET', `/v1/runs/bench-${i % flags.submissions}`).then((r) => ({ ms: performance.now() - start, status: r.status })));
    }
    const answered = await Promise.all(polls);
    const seconds = (performance.now() - t0) / 1000;
    const pollCpu = perRequest(cpu0, threadCpuMs(apiPid), total);
    cases.push(
      latencyCase(
        'status polls',
        { rate: flags['poll-rate'], seconds: flags['poll-seconds'], runs: flags.submissions },
        answered.map((r) => r.ms),
        seconds,
        { failed: answered.filter((r) => r.status !== 200).length, ...pollCpu },
        { before: load, after: os.loadavg()[0]! },
      ),
    );
    await pool.close();
    printResults('api-load', cases);
  } finally {
    await api.stop();
    if (worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await temporal.stop();
    // The runs' folders and the ledger: nothing reads them once the bench has printed its figures.
    await Promise.all([runsDir, stateDir].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

runMain(main);
