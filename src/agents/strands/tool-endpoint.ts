// The environment's tools for one Strands rollout, served to its runner on loopback: each call the
// Strands agent makes is run here, in the worker, against the rollout's session state, so verify grades
// the state the tools left, as in Gymflow's own loop. NeMo Gym's agents call a resources server's tool
// routes the same way (POST /<tool>); this endpoint holds one session only and needs its bearer token.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { readJson, sendJson } from '../../gateway/http';
import { runTool } from '../../environments/tools';
import type { AnyEnvironment } from '../../environments/types';

/** One call as the worker ran it: what the model asked for and what it was answered. */
export interface EnvironmentToolCall {
  call_id: string;
  name: string;
  arguments: string;
  /** The tool's HTTP-like status (404 unknown tool, 422 bad arguments: answers the model reads). */
  status: number;
  output: string;
}

export interface ToolEndpoint {
  /** `http://127.0.0.1:PORT/tools`; a tool's route is `<url>/<name>`. */
  url: string;
  /** The bearer token the runner sends: only the process it is given to can call the tools. */
  token: string;
  calls(): EnvironmentToolCall[];
  /** The session state after the last call (the seeded state before any). */
  state(): unknown;
  /** The first error a tool threw: the rollout fails with it (a tool error, never a zero reward). */
  failure(): Error | undefined;
  close(): Promise<void>;
}

const CallBody = z.object({ call_id: z.string(), arguments: z.string() });

export async function startToolEndpoint(env: AnyEnvironment, task: unknown, seeded: unknown): Promise<ToolEndpoint> {
  const token = randomBytes(24).toString('hex');
  const calls: EnvironmentToolCall[] = [];
  let state = seeded;
  let failed: Error | undefined;
  // Calls run one at a time (Strands runs a turn's tools concurrently), so none loses another's update.
  let turn: Promise<unknown> = Promise.resolve();

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/tools\//, ''));
    if (req.method !== 'POST' || !req.url?.startsWith('/tools/')) return sendJson(res, 404, { detail: 'Not Found' });
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, { detail: 'bad or missing bearer token' });
    const body = CallBody.safeParse(await readJson(req).catch(() => undefined));
    if (!body.success) return sendJson(res, 400, { detail: `a tool call is {"call_id": string, "arguments": string}: ${body.error.issues[0]?.message}` });
    // After a tool has thrown the rollout is lost: nothing more runs against its state.
    if (failed) return sendJson(res, 500, { error: `an earlier tool call failed: ${failed.message}` });
    const run = turn.then(() => runTool(env, task, state, name, body.data.arguments));
    turn = run.catch(() => undefined);
    try {
      const result = await run;
      state = result.state;
      calls.push({ call_id: body.data.call_id, name, arguments: body.data.arguments, status: result.status, output: result.output });
      sendJson(res, 200, { status: result.status, output: result.output });
    } catch (e) {
      failed ??= e instanceof Error ? e : new Error(String(e));
      sendJson(res, 500, { error: `tool ${name} failed: ${failed.message}` });
    }
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((e: unknown) => sendJson(res, 500, { error: String(e) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tools`,
    token,
    calls: () => [...calls],
    state: () => state,
    failure: () => failed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
