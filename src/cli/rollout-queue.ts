// A run whose batches go to a rollout queue waits for workers there: when none polls it, the person
// following the run is told so, and how to start one, instead of watching a progress line that never moves.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/** Whether any worker has polled the queue's activity tasks lately (the server keeps pollers a few minutes). */
export async function rolloutQueuePolled(client: Client, namespace: string, queue: string): Promise<boolean> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: queue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (answer.pollers?.length ?? 0) > 0;
}

export function unpolledRolloutQueueHint(queue: string): string {
  return `no worker polls rollout queue ${queue} yet: the run's batches wait for one (gym worker start --task-queue ${queue} --role rollouts)`;
}
