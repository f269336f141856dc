// Shared by the gateway tests: a gateway with captured logs, JSON calls over real HTTP carrying its
// token, fixture rows, and a minimal agent loop that plays an episode against the gateway with an
// environment's tools.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { getEnvironment } from '../../src/environments/registry';
import { ModelCallRecord } from '../../src/schemas/records';
import { functionCalls, inputItems, type ConversationItem, type ResponseObject } from '../../src/schemas/responses';
import type { TaskRow } from '../../src/schemas/task';
import { startGateway, type Gateway } from '../../src/gateway/server';

export const MULTI_STEP_DIR = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step');
export const MULTI_STEP_TASKS = path.join(MULTI_STEP_DIR, 'example.jsonl');
export const MULTI_STEP_ROLLOUTS = path.join(MULTI_STEP_DIR, 'example_rollouts.jsonl');

export function readJsonl<T = any>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

export interface CapturedGateway {
  gateway: Gateway;
  /** Every log line written so far, raw, as pino wrote it. */
  logText(): string;
  logLines(): Record<string, any>[];
}

export async function gatewayWithLogs(opts: { token?: string } = {}): Promise<CapturedGateway> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const gateway = await startGateway({ logger: pino({ level: 'debug' }, sink), token: opts.token });
  const logText = () => chunks.join('');
  return {
    gateway,
    logText,
    logLines: () =>
      logText()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

export interface JsonReply {
  status: number;
  headers: Headers;
  body: any;
}

/** The header that admits a request: the gateway's token as a bearer key. */
export function authHeader(gateway: Gateway): Record<string, string> {
  return { authorization: `Bearer ${gateway.token}` };
}

/** POSTs JSON to a gateway route (e.g. `/responses`) with its token; `headers` may override any header. */
export async function postJson(gateway: Gateway, route: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
  const res = await fetch(`${gateway.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeader(gateway), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** POSTs JSON to a route under any base URL of the gateway (e.g. a rollout-scoped one) with its token. */
export async function postTo(gateway: Gateway, baseUrl: string, route: string, body: unknown): Promise<JsonReply> {
  const res = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeader(gateway) }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export async function runFolder(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'gymflow-gateway-run-'));
}

/** The model call log lines of a run folder, validated, in call order. */
export async function callRecords(runDir: string): Promise<ModelCallRecord[]> {
  const dir = path.join(runDir, 'model_calls');
  const lines: ModelCallRecord[] = [];
  for (const f of await readdir(dir)) {
    for (const l of (await readFile(path.join(dir, f), 'utf8')).split('\n').filter(Boolean)) lines.push(ModelCallRecord.parse(JSON.parse(l)));
  }
  return lines.sort((a, b) => a.step - b.step);
}

/** Items without the ForTraining token fields, to compare what a model said. */
export function withoutTokens(items: readonly object[]): object[] {
  return items.map((item) => {
    const { prompt_token_ids: _p, generation_token_ids: _g, generation_log_probs: _l, ...rest } = item as Record<string, unknown>;
    return rest;
  });
}

export interface Episode {
  turns: ResponseObject[];
  /** Everything after the task's input: model items and tool outputs, as NeMo Gym's response.output. */
  output: ConversationItem[];
  reward: number;
}

/** simple_agent's loop in miniature: call the model, run each tool call with the environment, repeat. */
export async function runEpisode(gateway: Gateway, model: string, envName: string, task: TaskRow, rolloutId: string, maxSteps = 10): Promise<Episode> {
  const env = getEnvironment(envName);
  const parsedTask = env.taskSchema.parse(task);
  const params = task.responses_create_params;
  const output: ConversationItem[] = [];
  const turns: ResponseObject[] = [];
  let state = await env.seedSession(parsedTask);
  for (let step = 0; step < maxSteps; step++) {
    const reply = await postJson(gateway, '/responses', { ...params, model, input: [...inputItems(params.input), ...output] }, { 'x-gymflow-rollout-id': rolloutId });
    if (reply.status !== 200) throw new Error(`model call failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    const response = reply.body as ResponseObject;
    turns.push(response);
    output.push(...response.output);
    const calls = functionCalls(response.output);
    if (calls.length === 0) break;
    for (const call of calls) {
      const tool = env.tools[call.name]!;
      const result = await tool.run(tool.args.parse(JSON.parse(call.arguments)), { task: parsedTask, state });
      state = result.state;
      output.push({ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(result.body) });
    }
  }
  const verdict = await env.verify(parsedTask, { ...turns.at(-1)!, output }, { state });
  return { turns, output, reward: verdict.reward };
}
