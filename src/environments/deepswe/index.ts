// DeepSWE v1.1 (NeMo Gym's deepswe resources server): a harness works on the task's repository in /app and
// commits; the task's collect hook takes the committed diff, and the task's own verifier, run on it in a fresh
// sandbox, writes the binary reward.
import { z } from 'zod';
import { GymError } from '../../errors';
import { defineEnvironment } from '../define';
import { prepareBaseRepository, setCommitterIdentity } from '../sandboxed/git';
import type { Environment } from '../types';
import { deepsweTaskSchema, taskOf, type DeepsweTask } from './task-data';
import { taskStore, type TaskStore } from './task-store';
import { verifyDeepswe, WORKDIR } from './verify';

export { DeepsweRow, type DeepsweTask } from './task-data';

export const DeepsweSettings = z.strictObject({
  /** The task store: a folder of DeepSWE task folders (absolute, or relative to the project's root). Default: the offline examples. */
  tasks_dir: z.string().min(1).optional(),
  /** How many tasks the store must hold (NeMo Gym's config: 113, DeepSWE v1.1's count); unchecked when unset. */
  expected_task_count: z.number().int().min(1).optional(),
  /** Grade each task's solution/solution.patch instead of the harness's work: checks the tasks' reference solutions. */
  is_verifying_golden_patch: z.boolean().optional(),
  /** Put the model's patch in the result (NeMo Gym's default true); its sha256 and size are always there. */
  include_model_patch_in_response: z.boolean().optional(),
});
export type DeepsweSettings = z.infer<typeof DeepsweSettings>;

export const DEFAULT_TASKS_DIR = 'src/environments/deepswe/data/tasks';
/** Folders DeepSWE's scripts write outside the workdir: the held-out tests, the collected patch, the verdict. */
const SCRATCH = ['/tests', '/logs'];

export function deepsweStore(settings: DeepsweSettings): () => TaskStore {
  return () => taskStore(settings.tasks_dir ?? DEFAULT_TASKS_DIR, settings.expected_task_count);
}

function createDeepswe(settings: DeepsweSettings = {}): Environment<DeepsweTask, null> {
  const store = deepsweStore(settings);
  return defineEnvironment({
    name: 'deepswe',
    description: "DeepSWE v1.1: a harness commits its work on the task's repository; the task's verifier, run on the committed diff in a fresh sandbox, writes the binary reward.",
    taskSchema: deepsweTaskSchema(store),
    evaluationOnly: 'DeepSWE v1.1 is a benchmark: NeMo Gym ships it as benchmark and example data only, with no training split',
    configurable: { schema: DeepsweSettings, create: (options) => createDeepswe({ ...settings, ...options }) },
    sandboxed: {
      workdir: WORKDIR,
      scratch: SCRATCH,
      repository: (row) => taskOf(row, store()).repository ?? {},
      prompt: (row) => taskOf(row, store()).instruction,
      async setup(row, sandbox, phase) {
        const task = taskOf(row, store());
        await prepareBaseRepository(sandbox, {
          workdir: WORKDIR,
          baseCommit: task.baseCommit,
          fromFolder: task.repository !== undefined,
          label: `DeepSWE task ${task.taskId}`,
          imageHint: `a DeepSWE task's repository comes from its image (${task.image}): give that image as --sandbox-image, or the task an environment/repository folder`,
        });
        // DeepSWE grades committed work only, so the agent must be able to commit.
        if (phase === 'agent') await setCommitterIdentity(sandbox, WORKDIR);
      },
      async verify(row, sandbox, sandboxes) {
        if (!sandboxes) throw new GymError('INTERNAL', 'deepswe grades in a fresh sandbox: its verify needs the harness runner to make one');
        return verifyDeepswe(taskOf(row, store()), sandbox, sandboxes, {
          goldenPatch: settings.is_verifying_golden_patch === true,
          includeModelPatch: settings.include_model_patch_in_response !== false,
        });
      },
    },
    verify() {
      throw new GymError('BAD_TASK', "deepswe is graded by the task's verifier in a sandbox, after a harness worked in another: run it with --agent <harness> (gym eval run --help)");
    },
  });
}

export const deepswe = createDeepswe();
