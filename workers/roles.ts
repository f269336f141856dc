// What a worker process takes on. Kept apart from worker.ts so commands can check a --role flag without
// loading Temporal's native worker.

/**
 * `all`: workflows, the turn grain's steps, collation, finalizing and batches. `rollouts`: batches only,
 * for a run's rollout queue (`--rollout-queue`): its sandboxes and harnesses go where this worker runs.
 */
export type WorkerRole = 'all' | 'rollouts';
export const WORKER_ROLES: readonly WorkerRole[] = ['all', 'rollouts'];
