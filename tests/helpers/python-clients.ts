// The official Python openai and anthropic clients as callers: a cached venv (scripts/setup-python-clients.sh,
// made once, from PyPI) and a driver script run as a subprocess that prints what the client assembled.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const DRIVER = path.join(ROOT, 'tests/gateway/python_clients.py');

let venv: Promise<string> | undefined;

/** The venv's python; the first call in a process creates the venv when it is missing (about a minute). */
export function clientsPython(): Promise<string> {
  venv ??= run('bash', [path.join(ROOT, 'scripts/setup-python-clients.sh')], { timeout: 600_000 }).then(({ stdout }) => path.join(stdout.trim(), 'bin', 'python'));
  return venv;
}

export interface PythonCall {
  client: 'openai' | 'anthropic';
  kind: 'chat' | 'responses' | 'messages';
  stream: boolean;
  base_url: string;
  api_key: string;
  request: Record<string, unknown>;
}

export interface PythonResult {
  /** The answer the client assembled, as JSON. */
  final: any;
  /** Stream event types in the order the client saw them (empty when not streamed). */
  events: string[];
  text: string;
  usage: any;
}

/** Makes the calls in order in one Python process (importing the clients takes seconds). */
export async function callWithPython(calls: PythonCall[]): Promise<PythonResult[]> {
  const python = await clientsPython();
  const { stdout } = await run(python, [DRIVER, JSON.stringify(calls)], { timeout: 300_000 });
  return JSON.parse(stdout);
}
