// What one workflow execution's history says about a run, read from its JSON events (the format of
// `temporal workflow show --output json`): its input, how it ended, and each round or batch it ran.
import { GymError } from '../errors';

interface Payloads {
  payloads?: { data?: string }[];
}
interface Failure {
  message?: string;
  cause?: Failure;
}
interface HistoryEvent {
  eventId: string;
  eventTime?: string;
  eventType: string;
  workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string }; input?: Payloads; originalExecutionRunId?: string; firstExecutionRunId?: string; continuedExecutionRunId?: string };
  markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, Payloads>; failure?: Failure };
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string }; input?: Payloads };
  activityTaskStartedEventAttributes?: { scheduledEventId?: string; attempt?: number; lastFailure?: Failure };
  activityTaskCompletedEventAttributes?: { scheduledEventId?: string; result?: Payloads };
  activityTaskFailedEventAttributes?: { scheduledEventId?: string; failure?: Failure };
  activityTaskTimedOutEventAttributes?: { scheduledEventId?: string; failure?: Failure };
}

/** One `advanceRollouts` round of a turn-grain shard: which rollouts finished which step, and how. */
export interface Round {
  eventId: number;
  /** The round's attempt: above 1 when the round itself failed and was retried (a worker lost, say). */
  attempt: number;
  /** [ordinal, step, code, reward]: code 0 another turn follows, 1 verify next, 2 recorded, 3 sidecar. */
  settled: [number, number, number, number?][];
  failure?: string;
}

/** One `runRolloutBatch` activity of a rollout-grain shard. */
export interface Batch {
  eventId: number;
  ordinals: number[];
  /** The attempt that ended it (or is running). */
  attempts: number;
  outcome: 'completed' | 'failed' | 'timed_out' | 'running';
  failure?: string;
}

export interface Execution {
  workflowId: string;
  runId: string;
  type: string;
  /** The last event's type, e.g. WORKFLOW_EXECUTION_COMPLETED (or an earlier one of an execution still running). */
  end: string;
  started?: string;
  ended?: string;
  events: number;
  input: Record<string, unknown>;
  rounds: Round[];
  batches: Batch[];
}

export function decodePayload(p: Payloads | undefined): unknown {
  const data = p?.payloads?.[0]?.data;
  return data === undefined ? undefined : JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
}

function failureText(f: Failure | undefined): string | undefined {
  if (!f) return undefined;
  const inner = failureText(f.cause);
  return inner && inner !== f.message ? `${f.message}: ${inner}` : f.message;
}

const short = (type: string) => type.replace(/^EVENT_TYPE_/, '');

/** Reads one execution; a file that is not a workflow history is refused with its name. */
export function readExecution(workflowId: string, history: unknown, source: string): Execution {
  const events = (history as { events?: HistoryEvent[] } | undefined)?.events;
  const started = events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!Array.isArray(events) || !started) throw new GymError('BAD_INPUT', `${source} is not a workflow history (its first event must be WorkflowExecutionStarted)`);
  const rounds: Round[] = [];
  const batches = new Map<string, Batch>();
  for (const e of events) {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = decodePayload(marker.details?.data) as { attempt?: number; activity_type?: string } | undefined;
      if (data?.activity_type !== 'advanceRollouts') continue;
      const result = decodePayload(marker.details?.result) as Round['settled'] | undefined;
      rounds.push({ eventId: Number(e.eventId), attempt: data.attempt ?? 1, settled: result ?? [], failure: failureText(marker.failure) });
      continue;
    }
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'runRolloutBatch') {
      const input = decodePayload(scheduled.input) as { ordinals?: number[] } | undefined;
      batches.set(e.eventId, { eventId: Number(e.eventId), ordinals: input?.ordinals ?? [], attempts: 1, outcome: 'running' });
      continue;
    }
    const batchOf = (id: string | undefined) => (id === undefined ? undefined : batches.get(id));
    const start = e.activityTaskStartedEventAttributes;
    if (start) {
      const b = batchOf(start.scheduledEventId);
      if (b) b.attempts = start.attempt ?? b.attempts;
    }
    const completed = batchOf(e.activityTaskCompletedEventAttributes?.scheduledEventId);
    if (completed) completed.outcome = 'completed';
    const failed = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    const failedBatch = batchOf(failed?.scheduledEventId);
    if (failedBatch) {
      failedBatch.outcome = e.activityTaskFailedEventAttributes ? 'failed' : 'timed_out';
      failedBatch.failure = failureText(failed!.failure);
    }
  }
  const runId = started.originalExecutionRunId ?? started.firstExecutionRunId ?? '';
  return {
    workflowId,
    runId,
    type: started.workflowType?.name ?? '',
    end: short(events.at(-1)!.eventType),
    started: events[0]!.eventTime,
    ended: events.at(-1)!.eventTime,
    events: events.length,
    input: (decodePayload(started.input) as Record<string, unknown> | undefined) ?? {},
    rounds,
    batches: [...batches.values()],
  };
}
