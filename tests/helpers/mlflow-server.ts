// A real MLflow tracking server (PyPI's mlflow, from the venv scripts/setup-exporters.sh makes) on a reserved
// loopback port, with a SQLite store and a local artifact root in a temporary folder, serving artifacts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { releasePort, reservePort } from './ports';

export const MLFLOW_VENV = path.join(PACKAGE_ROOT, '.gymflow', 'venvs', 'mlflow');

export interface MlflowServer {
  url: string;
  /** GET or POST one REST route (e.g. `/api/2.0/mlflow/runs/get?run_id=…`) and return its JSON. */
  api<T = Record<string, unknown>>(route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startMlflowServer(): Promise<MlflowServer> {
  const mlflow = path.join(MLFLOW_VENV, 'bin', 'mlflow');
  if (!existsSync(mlflow)) throw new Error(`no MLflow server in ${MLFLOW_VENV}: run bash scripts/setup-exporters.sh`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-mlflow-'));
  const port = await reservePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ['server', '--host', '127.0.0.1', '--port', String(port), '--workers', '1', '--backend-store-uri', `sqlite:///${dir}/mlflow.db`, '--artifacts-destination', path.join(dir, 'artifacts')];
  // The job runner (for GenAI scorers) is not what these tests need, and wants packages the lean venv leaves out.
  const child: ChildProcess = spawn(mlflow, args, { cwd: dir, env: { ...process.env, MLFLOW_SERVER_ENABLE_JOB_EXECUTION: 'false' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let log = '';
  child.stderr!.on('data', (d) => (log = (log + d).slice(-8000)));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
    releasePort(port);
    await rm(dir, { recursive: true, force: true });
  };
  // Start-up imports a lot of Python; on two busy cores that takes a while.
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`mlflow server exited with ${child.exitCode}:\n${log}`);
    }
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`mlflow server did not answer on ${url}:\n${log}`);
    }
    await sleep(500);
  }
  return {
    url,
    async api<T>(route: string, body?: unknown): Promise<T> {
      const res = await fetch(`${url}${route}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`MLflow ${route}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    stop,
  };
}
