// The model gateway's overhead: the same chat completion sent straight to an upstream model and through
// `gym gateway serve` (openai backend), plain, rollout-scoped (each call logged into a run folder) and streamed;
// and through a gateway in this process (`gateway.call`, the path Gymflow's own agent loop takes in a worker).
//   node --import tsx bench/gateway-overhead.ts [--requests 2000] [--concurrency 32] [--repeats 3] [--upstream-latency-ms 0] [--only <regex>] [--profile-gateway <dir>]
// The upstream is bench/mock-openai-server.ts (zero latency unless asked) and the served gateway a real `gym`
// process, each a child process; this one sends. Latency is one request at a time (p50/p99); throughput is
// --concurrency at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { Agent, request } from 'undici';
import { startGateway, type Gateway } from '../src/gateway/server';
import { measure, printResults, type CaseResult } from './lib/cases';
import { parseFlags, runMain } from './lib/flags';
import { cpuMs } from './lib/processes';

const ROOT = path.resolve(import.meta.dirname, '..');
const KEY_ENV = 'GYMFLOW_BENCH_UPSTREAM_KEY';
const TOKEN = `bench-${'x'.repeat(40)}`;

/** Starts a child and resolves with its stdout up to the first line matching `ready`. */
async function child(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; output: string }> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, GYMFLOW_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  for await (const line of createInterface({ input: proc.stdout! })) {
    output += `${line}\n`;
    if (ready.test(line)) return { proc, output };
  }
  throw new Error(`${args.join(' ')} exited before it was ready`);
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill('SIGTERM');
  await once(proc, 'exit');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Target {
  url: string;
  model: string;
  key: string;
  stream: boolean;
  /** Sent with `gateway.call` instead of over HTTP. */
  inProcess?: Gateway;
}

const dispatcher = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });

async function send(t: Target, i: number): Promise<void> {
  const message = {
    model: t.model,
    messages: [{ role: 'user', content: `Question ${i}: which letter?\nA: one\nB: two\nC: three` }],
    ...(t.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  if (t.inProcess) {
    const reply = await t.inProcess.call({ path: '/v1/chat/completions', body: message });
    if (reply.status !== 200) throw new Error(`the in-process gateway answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
    return;
  }
  const body = JSON.stringify(message);
  const res = await request(`${t.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
    body,
    dispatcher,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${t.url} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  if (t.stream && !text.includes('[DONE]')) throw new Error('the stream ended without [DONE]');
}

async function latencies(t: Target, n: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await send(t, i);
    ms.push(performance.now() - started);
  }
  return ms.sort((a, b) => a - b);
}

async function throughput(t: Target, n: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await send(t, next++);
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

runMain(async () => {
  const flags = parseFlags('node --import tsx bench/gateway-overhead.ts [flags]', {
    requests: { kind: 'int', default: 2000, help: 'requests per latency and per throughput measurement', min: 10 },
    concurrency: { kind: 'int', default: 32, help: 'requests in flight in the throughput measurement', min: 1 },
    repeats: { kind: 'int', default: 3, help: 'repeats of each case', min: 1 },
    'upstream-latency-ms': { kind: 'number', default: 0, help: "the upstream's delay before each answer (a model's generation time)", min: 0 },
    'profile-gateway': { kind: 'string', default: '', help: "write the served gateway's CPU profile (node --cpu-prof) into this folder" },
    only: { kind: 'string', default: '', help: 'run only the cases whose name matches this regular expression (the direct ones always run)' },
  });
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-gateway-'));
  const upstream = await child(['--import', 'tsx', 'bench/mock-openai-server.ts', '--port', '0', '--latency-ms', String(flags['upstream-latency-ms'])], /"url"/);
  const upstreamUrl = (JSON.parse(upstream.output) as { url: string }).url;
  const config = path.join(runDir, 'gateway.yaml');
  await writeFile(config, `models:\n  - backend: openai\n    model: mock-model\n    base_url: ${upstreamUrl}\n    api_key_env: ${KEY_ENV}\n`);
  const profile = flags['profile-gateway'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(flags['profile-gateway'])] : [];
  const gateway = await child([...profile, 'bin/gym.mjs', 'gateway', 'serve', '--config', config], /model openai-/, { GYMFLOW_GATEWAY_TOKEN: TOKEN, [KEY_ENV]: 'sk-bench' });
  process.env[KEY_ENV] = 'sk-bench';
  const local = await startGateway({ logger: pino({ level: 'warn' }) });
  try {
    const localModel = local.register({ backend: 'openai', model: 'mock-model', base_url: upstreamUrl, api_key_env: KEY_ENV, api: 'chat' });
    const gatewayModel = /model (\S+)/.exec(gateway.output)![1]!;
    const origin = /gateway at (\S+)\/v1/.exec(gateway.output)![1]!;
    const registered = await request(`${origin}/gymflow/rollouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ rollout_id: 'bench-0', run_dir: runDir, model: gatewayModel }),
      dispatcher,
    });
    const scoped = ((await registered.body.json()) as { base_url: string }).base_url;

    const targets: Record<string, Target> = {
      direct: { url: upstreamUrl, model: 'mock-model', key: 'sk-bench', stream: false },
      // A streamed call's baseline is the same streamed call sent straight to the model.
      'direct, streamed': { url: upstreamUrl, model: 'mock-model', key: 'sk-bench', stream: true },
      gateway: { url: `${origin}/v1`, model: gatewayModel, key: TOKEN, stream: false },
      'gateway, rollout-scoped (logged)': { url: scoped, model: gatewayModel, key: TOKEN, stream: false },
      'gateway, rollout-scoped, streamed': { url: scoped, model: gatewayModel, key: TOKEN, stream: true },
      'gateway in-process (gateway.call)': { url: '', model: localModel, key: '', stream: false, inProcess: local },
    };
    const cases: CaseResult[] = [];
    const only = flags.only ? new RegExp(flags.only) : undefined;
    for (const [name, target] of Object.entries(targets)) {
      if (only && !name.startsWith('direct') && !only.test(name)) continue;
      await latencies(target, 200); // warm-up: connections, JIT
      cases.push(
        await measure(
          name,
          async () => {
            const cpu0 = cpuMs(gateway.proc.pid!);
            const ms = await latencies(target, flags.requests);
            const rps = await throughput(target, flags.requests, flags.concurrency);
            // What the served gateway spent per request of this case (nothing for the cases that bypass it).
            const gatewayCpu = (cpuMs(gateway.proc.pid!) - cpu0) / (2 * flags.requests);
            return { units: flags.requests, p50_ms: percentile(ms, 50), p99_ms: percentile(ms, 99), requests_per_second: rps, gateway_cpu_ms_each: Math.round(gatewayCpu * 1000) / 1000 };
          },
          { unit: 'requests', params: { requests: flags.requests, concurrency: flags.concurrency, stream: target.stream, upstream_latency_ms: flags['upstream-latency-ms'] }, repeats: flags.repeats },
        ),
      );
    }
    const baseline = (c: CaseResult) => cases.find((d) => d.case === (c.case.endsWith('streamed') ? 'direct, streamed' : 'direct'))!.median;
    const overhead = Object.fromEntries(
      cases
        .filter((c) => !c.case.startsWith('direct'))
        .map((c) => [c, baseline(c)] as const)
        .map(([c, direct]) => [
          c.case,
          {
            added_p50_ms: Math.round((c.median.p50_ms! - direct.p50_ms!) * 1000) / 1000,
            added_p99_ms: Math.round((c.median.p99_ms! - direct.p99_ms!) * 1000) / 1000,
            throughput_vs_direct: Math.round((c.median.requests_per_second! / direct.requests_per_second!) * 1000) / 1000,
          },
        ]),
    );
    printResults('gateway-overhead', cases, { overhead });
  } finally {
    await local.close();
    await dispatcher.close();
    await stop(gateway.proc);
    await stop(upstream.proc);
    await rm(runDir, { recursive: true, force: true });
  }
});
