// The Slurm job script generated from its spec: valid bash, the directives and replica commands the
// spec asks for, values quoted so the shell reads them back unchanged, no secret in it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jobScript, shellQuote } from '../../src/slurm/script';
import type { SlurmJobInput } from '../../src/slurm/spec';

const spec = (over: { allocation?: Partial<SlurmJobInput['allocation']>; vllm?: Partial<SlurmJobInput['vllm']> } & Partial<Omit<SlurmJobInput, 'allocation' | 'vllm'>> = {}): SlurmJobInput => ({
  run_dir: '/runs/r1',
  script_path: '/runs/r1/slurm/job.sh',
  endpoint_file: '/runs/r1/slurm/endpoints',
  gym: ['/usr/bin/node', '/repo/bin/gym.mjs'],
  workers: 1,
  max_jobs: 5,
  temporal: { address: 'temporal.example:7233', namespace: 'evals' },
  ...over,
  allocation: { job_name: 'gym-r1', nodes: 1, time: '04:00:00', gpus_per_node: 1, signal_lead_s: 300, ...over.allocation },
  vllm: { command: 'vllm', model: 'Qwen/Qwen3-8B', served_model_name: 'qwen3', replicas_per_node: 1, gpus_per_replica: 1, port: 8000, startup_timeout_s: 600, ...over.vllm },
});

const directives = (script: string) =>
  script
    .split('\n')
    .filter((l) => l.startsWith('#SBATCH '))
    .map((l) => l.slice('#SBATCH '.length));

describe('jobScript', () => {
  it('is valid bash', () => {
    const script = jobScript(spec({ env: { HF_HOME: "/data/it's here" }, vllm: { container: { image: 'vllm/vllm-openai:v0.11.0', mounts: ['/data:/data'] }, args: ['--max-model-len=32768'] } }));
    expect(() => execFileSync('bash', ['-n'], { input: script })).not.toThrow();
  });

  it('asks Slurm for the allocation, the time-limit signal to the batch shell, and requeue on preemption', () => {
    const d = directives(
      jobScript(
        spec({
          allocation: {
            nodes: 2,
            time: '1-00:00:00',
            partition: 'batch',
            account: 'proj',
            qos: 'high',
            gpus_per_node: 8,
            cpus_per_node: 64,
            mem: '200G',
            signal_lead_s: 600,
            extra: ['--constraint=h100'],
          },
        }),
      ),
    );
    expect(d).toEqual([
      '--job-name=gym-r1',
      '--nodes=2',
      '--ntasks-per-node=1',
      '--time=1-00:00:00',
      '--partition=batch',
      '--account=proj',
      '--qos=high',
      '--gpus-per-node=8',
      '--cpus-per-task=64',
      '--mem=200G',
      '--output=/runs/r1/slurm/job-%j.out',
      '--open-mode=append',
      '--signal=B:USR1@600',
      '--requeue',
      '--constraint=h100',
    ]);
    // No GPUs asked for leaves out the directive (a CPU-only partition refuses gres it does not have).
    expect(directives(jobScript(spec({ allocation: { gpus_per_node: 0 }, vllm: { gpus_per_replica: 0 } }))).some((l) => l.startsWith('--gpus'))).toBe(false);
  });

  it('starts each replica with its GPUs, tensor parallel size and container, on consecutive ports', () => {
    const script = jobScript(
      spec({
        vllm: {
          replicas_per_node: 4,
          gpus_per_replica: 2,
          port: 9000,
          args: ['--max-model-len=32768'],
          container: { image: 'vllm/vllm-openai:v0.11.0', mounts: ['/data:/data', '/models:/models:ro'] },
        },
      }),
    );
    expect(script).toContain('for ((r = 0; r < 4; r++)); do');
    expect(script).toContain('port=$((9000 + r))');
    expect(script).toContain(
      "srun '--nodes=1' '--ntasks=1' '--overlap' '--kill-on-bad-exit=0' '--gres=gpu:2' '--container-image=vllm/vllm-openai:v0.11.0' '--container-mounts=/data:/data,/models:/models:ro' --nodelist=\"$node\"",
    );
    expect(script).toContain("'vllm' 'serve' 'Qwen/Qwen3-8B' '--served-model-name' 'qwen3' '--tensor-parallel-size' '2' '--max-model-len=32768' --host 0.0.0.0 --port \"$port\"");
    const single = jobScript(spec({ vllm: { gpus_per_replica: 1 } }));
    expect(single).not.toContain('--tensor-parallel-size');
    expect(jobScript(spec({ vllm: { gpus_per_replica: 0 } }))).not.toContain('--gres');
  });

  it('runs the workers and follows the run with gym eval resume on the same folder', () => {
    const script = jobScript(spec({ workers: 3 }));
    expect(script).toContain("gym=('/usr/bin/node' '/repo/bin/gym.mjs')");
    expect(script).toContain('for ((w = 0; w < 3; w++)); do');
    expect(script).toContain('"${gym[@]}" worker start --run "$run_dir"');
    expect(script).toContain('"${gym[@]}" eval resume "$run_dir" --no-worker &');
    // The successor is this same script, after this job, numbered one further along a bounded chain.
    expect(script).toContain('sbatch --parsable --dependency="afterany:$job" --export="ALL,GYM_SLURM_CHAIN=$((chain + 1))" "$script"');
    expect(script).toContain('max_jobs=5');
    expect(script).toContain('trap on_time_limit USR1');
  });

  it('exports the job environment and Temporal settings quoted, and names the API key only', () => {
    const script = jobScript(
      spec({ env: { HF_HOME: "/data/it's $HOME" }, temporal: { address: 'temporal.example:7233', namespace: 'evals', tls: { caPath: '/etc/ca.pem' }, apiKeyEnv: 'TEMPORAL_API_KEY' } }),
    );
    const exports = script.split('\n').filter((l) => l.startsWith('export '));
    const read = execFileSync('bash', ['-c', `${exports.join('\n')}\nprintf '%s\\n' "$HF_HOME" "$TEMPORAL_ADDRESS" "$TEMPORAL_NAMESPACE" "$TEMPORAL_TLS" "$TEMPORAL_TLS_CA"`], { env: {} }).toString();
    expect(read.split('\n').slice(0, 5)).toEqual(["/data/it's $HOME", 'temporal.example:7233', 'evals', 'true', '/etc/ca.pem']);
    expect(script).toContain('"${TEMPORAL_API_KEY:?the Temporal API key');
    // A key over a plaintext connection (TEMPORAL_TLS=false) stays plaintext in the job.
    const plain = jobScript(spec({ temporal: { address: 'temporal.example:7233', namespace: 'evals', tls: false, apiKeyEnv: 'TEMPORAL_API_KEY' } }));
    expect(plain.split('\n').filter((l) => l.startsWith('export TEMPORAL_TLS'))).toEqual(['export TEMPORAL_TLS=false']);
  });

  it('refuses a spec sbatch or the shell would misread', () => {
    expect(() => jobScript(spec({ allocation: { job_name: 'my job' } }))).toThrow(/job_name/);
    expect(() => jobScript(spec({ allocation: { time: 'tomorrow' } }))).toThrow(/a Slurm time/);
    expect(() => jobScript(spec({ run_dir: '/runs/my run' }))).toThrow(/without spaces/);
    expect(() => jobScript(spec({ run_dir: '/runs/%j' }))).toThrow(/%/);
    expect(() => jobScript(spec({ env: { 'BAD-NAME': 'x' } }))).toThrow(/shell variable name/);
    expect(() => jobScript(spec({ allocation: { extra: ['constraint=h100'] } }))).toThrow(/one sbatch option/);
  });
});

describe('shellQuote', () => {
  it('reads back unchanged through bash', () => {
    for (const text of ["it's", '$HOME `id` "x"', 'a\nb', '', "''", '\\n']) {
      expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(text)}`]).toString()).toBe(text);
    }
  });
});
