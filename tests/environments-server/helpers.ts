// Shared by the environment-server tests: the recorded example_multi_step episodes joined to their
// tasks, a stateful counter environment that lives only in the tests, and JSON calls over real HTTP.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { request } from 'undici';
import { z } from 'zod';
import { TaskRow } from '../../src/schemas/task';
import type { FunctionCallItem, FunctionCallOutputItem, ResponseObject } from '../../src/schemas/responses';
import { JudgeError, reply, type Environment } from '../../src/environments/types';
import { MULTI_STEP_ROLLOUTS, MULTI_STEP_TASKS, readJsonl } from '../gateway/helpers';

export interface RecordedEpisode {
  task: Record<string, any>;
  rollout: Record<string, any> & { response: ResponseObject; reward: number };
  /** The episode's tool calls with the outputs NeMo Gym recorded for them, in order. */
  calls: { name: string; arguments: string; output: string }[];
}

/** Recorded rows carry no task index, so each is joined to the task with the same input messages. */
export function multiStepEpisodes(): RecordedEpisode[] {
  const tasks = readJsonl(MULTI_STEP_TASKS);
  const key = (row: any) => JSON.stringify(row.responses_create_params.input.map((m: any) => [m.role, m.content]));
  return readJsonl(MULTI_STEP_ROLLOUTS).map((rollout) => {
    const task = tasks.find((t) => key(t) === key(rollout));
    if (!task) throw new Error('a recorded rollout has no task in example.jsonl');
    const outputs = new Map(rollout.response.output.filter((i: FunctionCallOutputItem) => i.type === 'function_call_output').map((i: FunctionCallOutputItem) => [i.call_id, i.output]));
    const calls = rollout.response.output
      .filter((i: FunctionCallItem) => i.type === 'function_call')
      .map((i: FunctionCallItem) => ({ name: i.name, arguments: i.arguments, output: outputs.get(i.call_id) as string }));
    return { task, rollout, calls };
  });
}

/** The recorded verify fields, without the echoed request. */
export function recordedVerifyFields(rollout: Record<string, unknown>): Record<string, unknown> {
  const { response: _response, responses_create_params: _params, ...fields } = rollout;
  return fields;
}

const CounterTask = TaskRow.extend({ expected: z.number().int(), judge_down: z.boolean().optional() });
type CounterTask = z.infer<typeof CounterTask>;

/**
 * Stateful on purpose: the count lives only in the session, so a reward of 1 proves the tool calls
 * and verify of one rollout saw the same session and no other rollout's.
 */
export const counterEnv: Environment<CounterTask, { count: number }> = {
  name: 'test_counter',
  description: 'Increment a counter; reward 1 when it ends at the expected value.',
  taskSchema: CounterTask,
  reverifyMode: 'stateful',
  seedSession: () => ({ count: 0 }),
  tools: {
    increment: {
      args: z.object({ by: z.number().int().default(1) }),
      // The pause lets a concurrent call on the same session interleave, were calls not serialised.
      run: async ({ by }: { by: number }, { state }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return reply({ count: state.count + by }, { count: state.count + by });
      },
    },
    explode: {
      args: z.object({}),
      run: () => {
        throw new Error('the tool blew up');
      },
    },
  },
  verify(task, _response, { state }) {
    if (task.judge_down) throw new JudgeError('judge endpoint returned 503');
    return { reward: state.count === task.expected ? 1 : 0, count: state.count };
  },
};

export function counterTask(expected: number, extra: Record<string, unknown> = {}): CounterTask {
  return { responses_create_params: { input: 'count up' }, expected, ...extra };
}

export const emptyResponse: ResponseObject = { id: 'resp_test', object: 'response', output: [] };

export interface HttpReply {
  status: number;
  body: any;
  /** The raw Set-Cookie header, or undefined when the response had none. */
  setCookie: string | undefined;
  /** The `name=value` part of Set-Cookie, ready to send back as a Cookie header. */
  cookie: string | undefined;
}

export async function call(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown, cookie?: string, rawBody?: string): Promise<HttpReply> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: { ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.body.text();
  const header = res.headers['set-cookie'];
  const setCookie = Array.isArray(header) ? header.join('\n') : header;
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, setCookie, cookie: setCookie?.split(';')[0] };
}

export const post = (baseUrl: string, path: string, body: unknown, cookie?: string) => call(baseUrl, 'POST', path, body, cookie);

/** A logger whose lines the test can read. */
export function capturedLogger(): { logger: Logger; lines: () => Record<string, any>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
  return { logger: pino({ level: 'debug' }, sink), lines };
}
