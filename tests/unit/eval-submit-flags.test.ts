// `gym eval submit`'s flags: the job spec they make, --dry-run's script, and every refusal naming its flag
// before anything is prepared or submitted.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { evalSubmit } from '../../src/cli/commands/eval-submit';
import { createLogger } from '../../src/util/logger';

const MCQA = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const logger = createLogger('test', 'silent');

async function submit(extra: string[]): Promise<{ out: string; said: string }> {
  const out = path.join(os.tmpdir(), `eval-submit-flags-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const lines: string[] = [];
  await evalSubmit(['--env', 'mcqa', '--model-name', 'qwen3', '--input', MCQA, '--output', out, '--dry-run', ...extra], logger, (l) => lines.push(l));
  return { out, said: lines.join('\n') };
}

describe('gym eval submit', () => {
  beforeEach(() => {
    vi.stubEnv('TEMPORAL_ADDRESS', 'temporal.example:7233');
    vi.stubEnv('TEMPORAL_NAMESPACE', 'evals');
  });
  afterEach(() => vi.unstubAllEnvs());

  it('--dry-run prints the job script from the flags and prepares nothing', async () => {
    const { out, said } = await submit([
      '--nodes',
      '2',
      '--replicas-per-node',
      '4',
      '--gpus-per-replica',
      '2',
      '--vllm-model',
      '/models/qwen3',
      '--partition',
      'batch',
      '--time',
      '12:00:00',
      '--job-env',
      'HF_HOME=/data/hf',
    ]);
    expect(said).toMatch(/^#!\/bin\/bash/);
    expect(said).toContain('#SBATCH --nodes=2');
    expect(said).toContain('#SBATCH --gpus-per-node=8');
    expect(said).toContain('#SBATCH --partition=batch');
    expect(said).toContain('#SBATCH --time=12:00:00');
    expect(said).toContain('#SBATCH --signal=B:USR1@300');
    expect(said).toContain("'vllm' 'serve' '/models/qwen3' '--served-model-name' 'qwen3' '--tensor-parallel-size' '2'");
    expect(said).toContain(`endpoints='${path.join(out, 'slurm', 'endpoints')}'`);
    expect(said).toContain("export TEMPORAL_ADDRESS='temporal.example:7233'");
    expect(said).toContain("export TEMPORAL_NAMESPACE='evals'");
    expect(said).toContain("export HF_HOME='/data/hf'");
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(existsSync(path.join(out, 'slurm'))).toBe(false);
  });

  it.each([
    [['--time', 'soon'], '--time "soon": a Slurm time: minutes, HH:MM:SS or D-HH:MM:SS'],
    [['--partition', 'a b'], '--partition "a b": letters, digits'],
    [['--job-name', 'my job'], '--job-name "my job": letters, digits'],
    [['--mem', 'lots'], '--mem "lots": a Slurm memory size'],
    [['--sbatch-arg', 'constraint=h100'], '--sbatch-arg "constraint=h100": one sbatch option'],
    [['--container-mount', '/data:/data'], '--container-mount only goes with --container-image'],
    [['--container-image', 'img', '--container-mount', 'nocolon'], '--container-mount "nocolon": SRC:DST'],
    [['--nodes', '0'], '--nodes must be an integer ≥ 1'],
    [['--workers', 'two'], '--workers must be an integer'],
    [['--signal-lead', '5'], '--signal-lead must be an integer ≥ 10'],
    [['--vllm-port', '80'], '--vllm-port must be an integer ≥ 1024'],
    [['--gpus-per-node', '2', '--replicas-per-node', '2', '--gpus-per-replica', '2'], '--gpus-per-node 2 is fewer than the 4 GPUs'],
    [['--vllm-arg=--port=9'], '--vllm-arg --port=9: the job sets --port itself'],
    [['--vllm-arg=--served-model-name=x'], 'the job sets --served-model-name itself'],
    [['--job-env', 'OPENAI_API_KEY=sk-x'], '--job-env OPENAI_API_KEY: a secret would be written into the job script'],
    [['--job-env', 'BAD-NAME=x'], '--job-env BAD-NAME: must be a shell variable name'],
    [['--model', 'openai'], '--model openai: gym eval submit serves the model with vLLM in the job'],
    [['--model-url', 'http://gpu:8000/v1'], "--model-url does not go with gym eval submit: the job's vLLM replicas"],
    [['--detach'], '--detach does not go with gym eval submit'],
    [['--max-failed-fraction', '0.1'], '--max-failed-fraction does not go with gym eval submit'],
    [['--split', 'train'], '--split does not go with gym eval submit'],
    [['--no-such-flag'], "Unknown option '--no-such-flag'"],
  ])('refuses %j naming the flag', async (flags, message) => {
    const err = await submit(flags).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(err?.code).toBe('BAD_FLAG');
    expect(err?.message).toContain(message);
  });

  it('refuses to submit without TEMPORAL_ADDRESS: the embedded server is on this machine only', async () => {
    vi.stubEnv('TEMPORAL_ADDRESS', undefined);
    await expect(submit([])).rejects.toThrow(/needs TEMPORAL_ADDRESS: the job's workers run on compute nodes/);
  });
});
