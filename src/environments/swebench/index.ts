// SWE-bench Verified and Multilingual (NeMo Gym's swebench resources server): a harness repairs the
// repository in /testbed; its `git diff` is applied in a fresh sandbox and SWE-bench's eval script and log
// parser, run there, decide whether the task is resolved.
import { z } from 'zod';
import { GymError } from '../../errors';
import { instructionOf } from '../../harnesses/task';
import { defineEnvironment } from '../define';
import { prepareBaseRepository, scrubHistory } from '../sandboxed/git';
import type { Environment } from '../types';
import { REPO_DIR } from './eval-script';
import { repositoryFiles, SwebenchTask } from './task-data';
import { verifySwebench } from './verify';

export { SwebenchRow, SwebenchTask } from './task-data';

export const SwebenchSettings = z.strictObject({
  /** Scrub the repository's history before the harness starts (NeMo Gym's default true; its Verified benchmark config turns it off). */
  apply_anti_cheating: z.boolean().optional(),
  /** Seconds SWE-bench's eval script may run (NeMo Gym's config: 1800). */
  evaluation_timeout: z.number().int().positive().optional(),
  /** Grade each row's own `patch` instead of the harness's work: checks that the tasks' reference fixes resolve them. */
  is_verifying_golden_patch: z.boolean().optional(),
});
export type SwebenchSettings = z.infer<typeof SwebenchSettings>;

const DEFAULT_EVALUATION_TIMEOUT_S = 1800;

/** The image SWE-bench's harness (and NeMo Gym) runs the task in: Docker Hub's swebench namespace. */
export function instanceImage(instanceId: string): string {
  return `swebench/sweb.eval.x86_64.${instanceId.toLowerCase()}:latest`.replaceAll('__', '_1776_');
}

function createSwebench(settings: SwebenchSettings = {}): Environment<SwebenchTask, null> {
  return defineEnvironment({
    name: 'swebench',
    description: "SWE-bench Verified and Multilingual: a harness repairs the repository; its git diff, applied in a fresh sandbox, is graded by SWE-bench's eval script and log parser.",
    taskSchema: SwebenchTask,
    evaluationOnly: 'SWE-bench Verified and Multilingual are benchmarks: NeMo Gym ships them as benchmark and example data only, with no training split',
    configurable: { schema: SwebenchSettings, create: (options) => createSwebench({ ...settings, ...options }) },
    sandboxed: {
      workdir: REPO_DIR,
      repository: (task) => repositoryFiles(task),
      prompt: (task) => instructionOf(task.responses_create_params.input).instruction,
      async setup(task, sandbox, phase) {
        await prepareBaseRepository(sandbox, {
          workdir: REPO_DIR,
          baseCommit: task.base_commit,
          fromFolder: task.repository_folder !== undefined,
          label: `instance ${task.instance_id}`,
          imageHint: `a SWE-bench row's repository comes from its image (${instanceImage(task.instance_id)}): give that image as --sandbox-image, or the row a repository_folder`,
        });
        if (phase === 'agent' && settings.apply_anti_cheating !== false) await scrubHistory(sandbox, REPO_DIR);
      },
      async verify(task, sandbox, sandboxes) {
        if (!sandboxes) throw new GymError('INTERNAL', 'swebench grades in a fresh sandbox: its verify needs the harness runner to make one');
        return verifySwebench(task, sandbox, sandboxes, {
          evaluationTimeoutS: settings.evaluation_timeout ?? DEFAULT_EVALUATION_TIMEOUT_S,
          goldenPatch: settings.is_verifying_golden_patch === true,
        });
      },
    },
    verify() {
      throw new GymError('BAD_TASK', "swebench is graded by SWE-bench's tests in a sandbox, after a harness worked in another: run it with --agent <harness> (gym eval run --help)");
    },
  });
}

export const swebench = createSwebench();
