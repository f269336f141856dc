// The W&B exporter: the real `wandb` library, driven by wandb_run.py in a Python subprocess, writes the run
// (offline by default: a `wandb/offline-run-*` folder in the run folder, uploaded later with `wandb sync`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GymError } from '../errors';
import { PACKAGE_ROOT } from '../util/paths';
import type { WandbConfig } from './config';
import type { ExportInput, ExportResult, Exporter } from './types';

const SCRIPT = path.join(PACKAGE_ROOT, 'src', 'exporters', 'wandb_run.py');
/** The venv scripts/setup-exporters.sh makes. */
export const WANDB_VENV_PYTHON = path.join(PACKAGE_ROOT, '.gymflow', 'venvs', 'wandb', 'bin', 'python');
const TIMEOUT_MS = 15 * 60_000;

function runPython(python: string, args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { env, stdio: ['ignore', 'ignore', 'pipe'], signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]), killSignal: 'SIGKILL' });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.once('error', (e) => reject(new GymError('SETUP_FAILED', `cannot run ${python} for the W&B exporter: ${e.message}`)));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

export function wandbExporter(config: WandbConfig): Exporter {
  return {
    name: 'wandb',
    async export(input: ExportInput): Promise<ExportResult> {
      const python = config.python ?? (existsSync(WANDB_VENV_PYTHON) ? WANDB_VENV_PYTHON : 'python3');
      // Only what wandb needs: the parent's own secrets stay out of the subprocess.
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME ?? os.homedir(), WANDB_MODE: config.mode, WANDB_SILENT: 'true', WANDB_DISABLE_GIT: 'true' };
      if (config.mode === 'online') {
        const key = process.env[config.api_key_env];
        if (!key) throw new GymError('SETUP_FAILED', `exporters.wandb.mode is online, but ${config.api_key_env} (exporters.wandb.api_key_env) is not set in the worker's environment`);
        env.WANDB_API_KEY = key;
      }
      const work = await mkdtemp(path.join(os.tmpdir(), 'gymflow-wandb-'));
      try {
        const spec = path.join(work, 'spec.json');
        const result = path.join(work, 'result.json');
        await writeFile(
          spec,
          JSON.stringify({
            project: config.project,
            entity: config.entity ?? null,
            name: config.name ?? input.manifest.run_id,
            dir: input.runDir,
            config: input.params,
            metrics: input.metrics,
            files: input.files,
            result,
          }),
        );
        const { code, stderr } = await runPython(python, [SCRIPT, spec], env, input.signal);
        if (code !== 0) {
          const why = stderr.trim().split('\n').slice(-3).join(' | ') || `exit status ${code}`;
          throw new GymError(
            code === 3 ? 'SETUP_FAILED' : 'UNREACHABLE',
            `W&B export with ${python} failed: ${why}${code === 3 ? ' — run `bash scripts/setup-exporters.sh` or set exporters.wandb.python' : ''}`,
          );
        }
        const out = JSON.parse(await readFile(result, 'utf8')) as { run_id: string; run_dir: string; url: string | null };
        return { target: config.mode === 'online' && out.url ? out.url : out.run_dir, run_id: out.run_id, uploaded: input.files.map((f) => f.name) };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}
