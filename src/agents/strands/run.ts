// One Strands rollout: the environment's session seeded and its tools served on loopback (tool-endpoint.ts),
// our runner started on the SDK's pinned Node with the gateway key and the tool token in its environment
// only, under the deadline (its process group killed past it), and the episode read back: the Response is
// the gateway-logged model turns with the worker's own tool outputs between them, graded on the tools' state.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../../errors';
import { requireInstalled } from '../../harnesses/install';
import { harnessPrompt, harnessWork } from '../../harnesses/task';
import type { HarnessRolloutInput, HarnessRun } from '../../harnesses/run';
import type { ConversationItem } from '../../schemas/responses';
import { startToolEndpoint, type EnvironmentToolCall } from './tool-endpoint';

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
/** How long a runner gets to leave after SIGTERM before its group is killed. */
const TERM_GRACE_MS = 5_000;
const TAIL = 8000;

/** A harness rollout's input without the sandbox: the runner runs on the worker's host. */
export type StrandsRolloutInput = Omit<HarnessRolloutInput, 'provider' | 'labels' | 'image' | 'onSandbox'>;

export interface StrandsRun extends Omit<HarnessRun, 'sandboxId' | 'verify'> {
  /** Every tool call the worker ran for the agent, in order. */
  toolCalls: EnvironmentToolCall[];
  /** The session state the tools left: what verify grades. */
  state: unknown;
  /** A tool that threw: the rollout is a tool error. */
  toolFailure?: Error;
}

interface Exit {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function runProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number; signal?: AbortSignal }): Promise<Exit> {
  return new Promise((resolve, reject) => {
    // Its own process group, so the runner and anything it started are ended together.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // Stdout carries the events (a line per tool call), so it is kept whole; stderr only as a tail.
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-TAIL)));
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // Already gone.
      }
    };
    let hard: NodeJS.Timeout | undefined;
    const end = () => {
      kill('SIGTERM');
      hard ??= setTimeout(() => kill('SIGKILL'), TERM_GRACE_MS);
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      end();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', end, { once: true });
    child.on('error', (e) => {
      clearTimeout(deadline);
      reject(new GymError('SETUP_FAILED', `the Strands runner could not be started with ${command}: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      clearTimeout(deadline);
      clearTimeout(hard);
      options.signal?.removeEventListener('abort', end);
      resolve({ code, signal: sig, timedOut, stdout, stderr });
    });
  });
}

export async function runStrandsRollout(input: StrandsRolloutInput): Promise<StrandsRun> {
  const { harness, env, task } = input;
  const work = harnessWork(env, task, input.label ?? 'the task', harness);
  const install = requireInstalled(harness);
  const prompt = harnessPrompt(work, input.systemPrompt, harness);
  const endpoint = await startToolEndpoint(env, task, await env.seedSession(task));
  const home = await mkdtemp(path.join(os.tmpdir(), 'gymflow-strands-'));
  const started = performance.now();
  try {
    const invocation = harness.invocation({
      workspace: home,
      home,
      ...prompt,
      baseUrl: input.baseUrl,
      model: input.model,
      timeoutMs: input.timeoutMs,
      tools: { definitions: task.responses_create_params.tools ?? [], url: endpoint.url },
    });
    for (const file of invocation.files) await writeFile(file.path, file.content, { mode: 0o600 });
    const exit = await runProcess(install.command, invocation.args, {
      cwd: home,
      env: {
        ...invocation.env,
        HOME: home,
        PATH: [...install.path, SYSTEM_PATH].join(':'),
        GYMFLOW_STRANDS_MODULES: path.join(install.dirs[0]!, 'node_modules'),
        GYMFLOW_TOOL_TOKEN: endpoint.token,
        [invocation.keyEnv]: input.apiKey,
      },
      timeoutMs: input.timeoutMs,
      signal: input.signal,
    });
    const failure = endpoint.failure();
    return {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: exit.timedOut,
      durationMs: performance.now() - started,
      stdoutTail: exit.stdout.slice(-TAIL),
      stderrTail: exit.stderr,
      report: harness.report(exit.stdout),
      toolCalls: endpoint.calls(),
      state: endpoint.state(),
      ...(failure ? { toolFailure: failure } : {}),
    };
  } finally {
    await endpoint.close();
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * The model turns' output with the worker's tool outputs put after the calls they answer, as Gymflow's
 * loop records an episode: a verify that reads what a tool returned finds it where NeMo Gym puts it.
 */
export function withToolOutputs(output: readonly ConversationItem[], calls: readonly EnvironmentToolCall[]): ConversationItem[] {
  const byId = new Map(calls.map((c) => [c.call_id, c]));
  return output.flatMap((item) => {
    const call = item.type === 'function_call' ? byId.get(String((item as { call_id?: unknown }).call_id)) : undefined;
    return call ? [item, { type: 'function_call_output', call_id: call.call_id, output: call.output } as ConversationItem] : [item];
  });
}
