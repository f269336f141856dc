// The hosted Switchyard proxy: its native server (nemo-switchyard's wheel, from the venv
// scripts/setup-switchyard.sh makes) run by host.py as a child process on a loopback port, checked
// before it serves (a refused deployment is a BAD_INPUT naming the file), and stopped with the gateway.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { GymError } from '../../../errors';
import { PACKAGE_ROOT } from '../../../util/paths';

export const SWITCHYARD_REQUIREMENT = 'nemo-switchyard==0.3.0';
const HOST_SCRIPT = path.join(PACKAGE_ROOT, 'src/gateway/backends/switchyard/host.py');
/** Loading the wheel's native module and binding the port take well under this even on a loaded machine. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export interface HostedProxy {
  /** The proxy's root URL, without `/v1`. */
  rootUrl: string;
  /** The nemo-switchyard version that serves. */
  version: string;
  stop(): Promise<void>;
}

/** The python with nemo-switchyard: GYMFLOW_SWITCHYARD_PYTHON, or the venv scripts/setup-switchyard.sh made. */
export function switchyardPython(): string {
  const given = process.env.GYMFLOW_SWITCHYARD_PYTHON;
  if (given) return given;
  const venvs = path.join(PACKAGE_ROOT, '.gymflow/venvs');
  const found = (existsSync(venvs) ? readdirSync(venvs) : [])
    .filter((name) => name.startsWith('switchyard-'))
    .map((name) => path.join(venvs, name))
    .find(
      (venv) => existsSync(path.join(venv, 'bin/python')) && existsSync(path.join(venv, '.requirements')) && readFileSync(path.join(venv, '.requirements'), 'utf8').trim() === SWITCHYARD_REQUIREMENT,
    );
  if (!found) throw new GymError('SETUP_FAILED', `${SWITCHYARD_REQUIREMENT} is not installed: run bash scripts/setup-switchyard.sh (or set GYMFLOW_SWITCHYARD_PYTHON to a python that has it)`);
  return path.join(found, 'bin/python');
}

/** Switchyard's messages repeat their causes ("a: b: a: b"); each cause once reads better. */
function tidy(message: string): string {
  const parts = message.split('\n: ')[0]!.trim().split(': ');
  return parts.filter((part, i) => parts.indexOf(part) === i).join(': ');
}

interface HostMessage {
  base_url?: string;
  port?: number;
  version?: string;
  error?: string;
  kind?: 'config' | 'start' | 'install';
}

/** Runs host.py and waits for its first line: the proxy serving, or why it does not. */
async function launch(deployment: string, port: number, check: boolean, sink: (line: string) => void): Promise<{ child: ChildProcess; message: HostMessage }> {
  const child = spawn(switchyardPython(), [HOST_SCRIPT, deployment, String(port), ...(check ? ['--check'] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr = createInterface({ input: child.stderr! });
  stderr.on('line', sink);
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new GymError('SETUP_FAILED', `the Switchyard proxy for ${deployment} did not start within ${START_TIMEOUT_MS / 1000}s`));
    }, START_TIMEOUT_MS);
    lines.once('line', (line) => (clearTimeout(timer), resolve(line)));
    child.once('error', (e) => (clearTimeout(timer), reject(new GymError('SETUP_FAILED', `cannot start the Switchyard proxy's python: ${e.message}`))));
    child.once('exit', () => (clearTimeout(timer), resolve(undefined)));
  });
  if (first === undefined) throw new GymError('SETUP_FAILED', `the Switchyard proxy for ${deployment} exited before it served (its log is in the gateway's log)`);
  return { child, message: JSON.parse(first) as HostMessage };
}

function refusal(deployment: string, message: HostMessage): GymError {
  if (message.kind === 'install') return new GymError('SETUP_FAILED', `${message.error}: run bash scripts/setup-switchyard.sh`);
  return new GymError('BAD_INPUT', `switchyard deployment ${deployment}: refused by nemo-switchyard ${message.version ?? ''}: ${tidy(message.error ?? 'no reason given')}`.replace('  ', ' '));
}

/** Loads the deployment in a real native server and closes it: Switchyard's own validation, before a run starts. */
export async function checkDeployment(deployment: string): Promise<{ version: string }> {
  const { child, message } = await launch(deployment, 0, true, () => {});
  await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  if (message.error) throw refusal(deployment, message);
  return { version: message.version! };
}

/** Starts the proxy from a deployment and returns once it serves; `logFile` receives its log, else `log` at debug. */
export async function hostProxy(deployment: string, opts: { port?: number; logFile?: string; log: Logger }): Promise<HostedProxy> {
  const file = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
  const sink = file ? (line: string) => void file.write(`${line}\n`) : (line: string) => opts.log.debug({ switchyard: line }, 'switchyard proxy');
  const { child, message } = await launch(deployment, opts.port ?? 0, false, sink);
  const exited = new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));
  if (message.error) {
    await exited;
    file?.end();
    throw refusal(deployment, message);
  }
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) opts.log.error({ code, signal, deployment }, 'the hosted Switchyard proxy exited; calls to it fail until the gateway restarts');
  });
  return {
    rootUrl: message.base_url!,
    version: message.version!,
    async stop() {
      stopping = true;
      // Closing stdin asks host.py to close the server; a proxy that does not go in time is killed.
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      await new Promise<void>((resolve) => (file ? file.end(resolve) : resolve()));
    },
  };
}
