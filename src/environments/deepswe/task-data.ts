// A DeepSWE task row as NeMo Gym's deepswe server takes it (task_data.py): a pointer into the task store —
// `task_id` (or verifier_metadata.task_id) and the task's pinned `image` — beside responses_create_params.
// Checked when the run's input is: the task must be in the store and the image the one it pins.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import type { DeepSweTask, TaskStore } from './task-store';

export const DeepsweRow = TaskRow.extend({
  /** The task's image; must be the one its task.toml pins (environment.docker_image). */
  image: z.string(),
  /** The task's id in the store; NeMo Gym's rows carry it here and in verifier_metadata too. */
  task_id: z.string().nullish(),
  verifier_metadata: z.record(z.string(), z.unknown()).nullish(),
  split: z.string().nullish(),
  subset: z.string().nullish(),
});
export type DeepsweTask = z.infer<typeof DeepsweRow>;

/** NeMo Gym's _resolve_task_id: the row's task_id or verifier_metadata's, which must agree; or why there is none. */
export function resolveTaskId(row: DeepsweTask): { taskId: string } | { path: string[]; message: string } {
  const fromMetadata = row.verifier_metadata?.task_id;
  if (row.task_id && fromMetadata && row.task_id !== fromMetadata) {
    return { path: ['verifier_metadata', 'task_id'], message: `conflicts with task_id: ${JSON.stringify(fromMetadata)} and ${JSON.stringify(row.task_id)}` };
  }
  const taskId = row.task_id || fromMetadata;
  if (typeof taskId !== 'string' || !taskId) return { path: ['task_id'], message: 'a DeepSWE row must give task_id or verifier_metadata.task_id' };
  return { taskId };
}

/** The row's task in the store; the row was checked, so it is there. */
export function taskOf(row: DeepsweTask, store: TaskStore): DeepSweTask {
  return store.tasks.get((resolveTaskId(row) as { taskId: string }).taskId)!;
}

/** The row schema over a store (the environment's tasks_dir), read when the first row is checked. */
export function deepsweTaskSchema(store: () => TaskStore) {
  return DeepsweRow.superRefine((row, ctx) => {
    const resolved = resolveTaskId(row);
    if ('message' in resolved) {
      ctx.addIssue({ code: 'custom', path: resolved.path, message: resolved.message });
      return;
    }
    let tasks: TaskStore;
    try {
      tasks = store();
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['task_id'], message: (e as Error).message });
      return;
    }
    const task = tasks.tasks.get(resolved.taskId);
    if (!task) {
      ctx.addIssue({
        code: 'custom',
        path: ['task_id'],
        message: `unknown DeepSWE task id ${JSON.stringify(resolved.taskId)} (the store ${tasks.dir} has ${[...tasks.tasks.keys()].join(', ') || 'none'})`,
      });
      return;
    }
    if (row.image !== task.image) ctx.addIssue({ code: 'custom', path: ['image'], message: `does not match the image task ${resolved.taskId} pins: ${task.image}` });
  });
}
