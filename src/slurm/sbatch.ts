// Handing a job script to Slurm: `sbatch --parsable`, its job id back, its refusal as a GymError that
// says what to do.
import { execFile } from 'node:child_process';
import { GymError } from '../errors';

/** sbatch answers at once (it only queues); a controller that does not answer within this is reported. */
const SBATCH_TIMEOUT_MS = 60_000;

/**
 * Which of these jobs Slurm still has queued or running. Jobs it has forgotten make squeue fail
 * ("Invalid job id"): none of them is alive then, so the answer is empty.
 */
export function liveJobs(ids: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return new Promise((resolve) => {
    execFile('squeue', ['-h', '-o', '%i', '-j', ids.join(',')], { env, timeout: SBATCH_TIMEOUT_MS }, (error, stdout) => {
      resolve(
        error
          ? []
          : String(stdout)
              .split('\n')
              .map((l) => l.trim())
              .filter((id) => ids.includes(id)),
      );
    });
  });
}

/** Queues the script; returns the job id Slurm gave it. */
export function sbatch(scriptPath: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sbatch', ['--parsable', scriptPath], { env, timeout: SBATCH_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          return reject(
            new GymError(
              'SETUP_FAILED',
              'sbatch is not on PATH: run gym eval submit on a Slurm login node (or install Slurm, e.g. bash scripts/setup-slurm.sh); --dry-run prints the script without it',
            ),
          );
        }
        const said = String(stderr).trim() || error.message;
        return reject(new GymError('SETUP_FAILED', `sbatch refused the job: ${said}`, [`the script is kept in ${scriptPath}`]));
      }
      // --parsable prints "<id>" or "<id>;<cluster>".
      const id = String(stdout).trim().split(';')[0] ?? '';
      if (!/^\d+$/.test(id)) return reject(new GymError('SETUP_FAILED', `sbatch answered without a job id: ${JSON.stringify(String(stdout).trim())}`));
      resolve(id);
    });
  });
}
