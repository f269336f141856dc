// Test helpers for environments: replaying a recorded episode's tool calls, unwrapping results of the
// synchronous environments the interface allows to be async, and verifying in a child process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ChildCase, ChildOutcome } from './verify_child';
import type { ConversationItem, FunctionCallItem, FunctionCallOutputItem } from '../../src/schemas/responses';
import type { AnyEnvironment } from '../../src/environments/types';

/** The value of a `T | Promise<T>` that must be synchronous for this environment. */
export function settled<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('expected a synchronous result');
  return value;
}

export interface ReplayedCall {
  name: string;
  ours: unknown;
  recorded: unknown;
}

/** Runs each recorded call through the tools in order, pairing our reply with NeMo Gym's recorded output (both as JSON). */
export async function replayToolCalls<State>(env: AnyEnvironment, task: unknown, state: State, output: readonly ConversationItem[]): Promise<{ state: State; calls: ReplayedCall[] }> {
  const recorded = new Map(output.filter((i): i is FunctionCallOutputItem => i.type === 'function_call_output').map((i) => [i.call_id, i.output]));
  const calls: ReplayedCall[] = [];
  for (const call of output.filter((i): i is FunctionCallItem => i.type === 'function_call')) {
    const tool = env.tools[call.name];
    if (!tool) throw new Error(`${env.name} has no tool ${call.name}`);
    const result = await tool.run(tool.args.parse(JSON.parse(call.arguments)), { task, state });
    state = result.state as State;
    const text = recorded.get(call.call_id);
    calls.push({ name: call.name, ours: result.body, recorded: typeof text === 'string' ? JSON.parse(text) : text });
  }
  return { state, calls };
}

/**
 * Verifies the cases in order in a child process (verify_child.ts), for answers that could freeze the
 * process that grades them: a child still running after `killAfterMs` is killed and the call rejects.
 */
export function verifyInChild(cases: ChildCase[], killAfterMs = 90_000): Promise<ChildOutcome[]> {
  const script = path.join(import.meta.dirname, 'verify_child.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killed) reject(new Error(`verify was still running after ${killAfterMs / 1000} s: the process froze`));
      else if (code !== 0) reject(new Error(`verify child exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as ChildOutcome[]);
    });
    child.stdin.end(JSON.stringify(cases));
  });
}
