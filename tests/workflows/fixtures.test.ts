// Replay discipline: the committed histories (tests/fixtures/histories, replayed by tests/e2e/replay.test.ts)
// were captured from the workflow code as it is now, and between them they take every workflow branch.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committedHistories } from '../helpers/histories';
import { WORKFLOWS_HASH_FILE, workflowsFingerprint } from '../helpers/workflow-hash';

interface Payloads {
  payloads?: { data?: string }[];
}
interface HistoryEvent {
  eventType: string;
  workflowExecutionStartedEventAttributes?: { input?: Payloads };
  workflowExecutionCompletedEventAttributes?: { result?: Payloads };
  workflowExecutionContinuedAsNewEventAttributes?: { input?: Payloads };
  workflowExecutionSignaledEventAttributes?: { signalName: string };
  workflowExecutionUpdateAcceptedEventAttributes?: { acceptedRequest: { input: { name: string } } };
}

/** What one execution's history shows, read from its events. */
interface Execution {
  workflowId: string;
  kind: 'run' | 'shard';
  durability: string;
  end: string;
  signals: string[];
  updates: string[];
  children: number;
  continuedAsNew?: { resume?: unknown[]; paused?: boolean };
  result?: { failed?: number };
}

const decode = (p: Payloads | undefined): Record<string, unknown> | undefined => {
  const data = p?.payloads?.[0]?.data;
  return data ? JSON.parse(Buffer.from(data, 'base64').toString('utf8')) : undefined;
};

function read(workflowId: string, history: unknown): Execution {
  const events = (history as { events: HistoryEvent[] }).events;
  const type = (e: HistoryEvent) => e.eventType.replace('EVENT_TYPE_', '');
  const last = events.at(-1)!;
  return {
    workflowId,
    kind: workflowId.includes('/shard-') ? 'shard' : 'run',
    durability: String(decode(events[0]!.workflowExecutionStartedEventAttributes?.input)?.durability),
    end: type(last),
    signals: events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []),
    updates: events.flatMap((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest.input.name ?? []),
    children: events.filter((e) => type(e) === 'START_CHILD_WORKFLOW_EXECUTION_INITIATED').length,
    continuedAsNew: decode(last.workflowExecutionContinuedAsNewEventAttributes?.input),
    result: decode(last.workflowExecutionCompletedEventAttributes?.result),
  };
}

describe('the committed workflow histories', () => {
  it('were captured from the current workflow code', () => {
    const recorded = readFileSync(WORKFLOWS_HASH_FILE, 'utf8');
    const now = workflowsFingerprint();
    const changed = now
      .split('\n')
      .filter((line) => line && !recorded.split('\n').includes(line))
      .map((line) => line.split('  ')[1]);
    expect(
      changed,
      `workflow code changed since tests/fixtures/histories was captured (${changed.join(', ')}). ` +
        'Capture histories of the new code with `npx tsx scripts/capture-histories.ts v<next>` and commit them beside the old ones, ' +
        'which must still replay; if the change alters the commands a running workflow issues, guard it with patched().',
    ).toEqual([]);
    expect(recorded).toBe(now);
  });

  const executions = committedHistories().map((h) => read(h.workflowId, h.history));
  const grains = ['turn', 'rollout'] as const;
  const branches: [string, (e: Execution) => boolean][] = grains.flatMap((grain): [string, (e: Execution) => boolean][] => {
    const shard = (e: Execution) => e.kind === 'shard' && e.durability === grain;
    const run = (e: Execution) => e.kind === 'run' && e.durability === grain;
    return [
      [`${grain}: a run that completed`, (e) => run(e) && e.end === 'WORKFLOW_EXECUTION_COMPLETED'],
      [`${grain}: rollouts routed to the sidecar`, (e) => shard(e) && (e.result?.failed ?? 0) > 0],
      [`${grain}: a failed shard`, (e) => shard(e) && e.end === 'WORKFLOW_EXECUTION_FAILED'],
      [`${grain}: a failed run`, (e) => run(e) && e.end === 'WORKFLOW_EXECUTION_FAILED'],
      [`${grain}: a cancelled shard`, (e) => shard(e) && e.end === 'WORKFLOW_EXECUTION_CANCELED'],
      [`${grain}: a cancelled run`, (e) => run(e) && e.end === 'WORKFLOW_EXECUTION_CANCELED'],
      [`${grain}: a run paused, resized and resumed`, (e) => run(e) && ['pause', 'resume'].every((s) => e.signals.includes(s)) && e.updates.includes('setConcurrency')],
      ...['pause', 'shardConcurrency', 'resume'].map((signal): [string, (e: Execution) => boolean] => [`${grain}: a shard that took signal ${signal}`, (e) => shard(e) && e.signals.includes(signal)]),
      [`${grain}: a shard that continued as new`, (e) => shard(e) && e.continuedAsNew !== undefined],
      [`${grain}: a run of several shards`, (e) => run(e) && e.children > 1],
    ];
  });
  branches.push(
    ['turn: a shard that continued as new with rollouts in flight', (e) => e.kind === 'shard' && e.durability === 'turn' && (e.continuedAsNew?.resume?.length ?? 0) > 0],
    ['rollout: a shard that continued as new while paused', (e) => e.kind === 'shard' && e.durability === 'rollout' && e.continuedAsNew?.paused === true],
    ['turn: a run stopped gracefully', (e) => e.kind === 'run' && e.durability === 'turn' && e.signals.includes('stop') && e.end === 'WORKFLOW_EXECUTION_COMPLETED'],
    ['turn: a shard that took signal stop', (e) => e.kind === 'shard' && e.durability === 'turn' && e.signals.includes('stop')],
  );

  it.each(branches)('include %s', (_, matches) => {
    expect(executions.some(matches)).toBe(true);
  });
});
