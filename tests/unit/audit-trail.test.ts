// Rollout trails read from the committed workflow histories (real runs of every workflow branch): the
// outcome each rollout reached in history agrees with what the workflows themselves reported.
import { describe, expect, it } from 'vitest';
import { decodePayload, readExecution, type Execution } from '../../src/audit/history-events';
import { runTrail } from '../../src/audit/rollout-trail';
import { committedHistories } from '../helpers/histories';

/** The committed runs, each as the executions of its workflows (the run's and its shards'). */
function committedRuns(): { run: string; executions: Execution[]; histories: unknown[] }[] {
  const runs = new Map<string, { run: string; executions: Execution[]; histories: unknown[] }>();
  for (const h of committedHistories()) {
    const run = h.workflowId.split('/')[0]!;
    const entry = runs.get(run) ?? { run, executions: [], histories: [] };
    entry.executions.push(readExecution(h.workflowId, h.history, h.workflowId));
    entry.histories.push(h.history);
    runs.set(run, entry);
  }
  return [...runs.values()];
}

/** What a completed shard execution returned: its own counts of recorded and sidecar rollouts. */
function shardCounts(histories: unknown[]): { done: number; failed: number } {
  let done = 0;
  let failed = 0;
  for (const h of histories) {
    const events = (
      h as { events: { eventType: string; workflowExecutionStartedEventAttributes?: { workflowType: { name: string } }; workflowExecutionCompletedEventAttributes?: { result?: any } }[] }
    ).events;
    if (events[0]!.workflowExecutionStartedEventAttributes!.workflowType.name !== 'shardWorkflow') continue;
    const result = decodePayload(events.at(-1)!.workflowExecutionCompletedEventAttributes?.result) as { done: number; failed: number } | undefined;
    if (result) {
      done += result.done;
      failed += result.failed;
    }
  }
  return { done, failed };
}

describe('rollout trails from workflow histories', () => {
  const runs = committedRuns();

  it('count as many recorded and sidecar rollouts as the turn-grain shards reported', () => {
    const completed = runs.filter((r) => r.executions.some((e) => e.type === 'evalRunWorkflow' && e.end === 'WORKFLOW_EXECUTION_COMPLETED'));
    const turn = completed.filter((r) => runTrail(r.executions).durability === 'turn');
    expect(turn.length).toBeGreaterThan(1);
    let sawSidecar = false;
    for (const r of turn) {
      const trail = runTrail(r.executions);
      const counts = shardCounts(r.histories);
      expect(trail.rollouts.filter((t) => t.outcome === 'recorded')).toHaveLength(counts.done);
      expect(trail.rollouts.filter((t) => t.outcome === 'sidecar')).toHaveLength(counts.failed);
      sawSidecar ||= counts.failed > 0;
      for (const t of trail.rollouts) {
        expect(t.steps.at(-1)!.outcome).toMatch(/recorded|sidecar/);
        // Rollout ids are <task>-<repeat>; every step of one rollout ran in its own shard.
        expect(t.rollout_id).toBe(`${t.task_index}-${t.rollout_index}`);
      }
    }
    expect(sawSidecar).toBe(true);
  });

  it('name the batch that played each rollout of the rollout grain', () => {
    const rollout = runs.filter((r) => runTrail(r.executions).durability === 'rollout' && r.executions.some((e) => e.type === 'evalRunWorkflow' && e.end === 'WORKFLOW_EXECUTION_COMPLETED'));
    expect(rollout.length).toBeGreaterThan(0);
    for (const r of rollout) {
      const trail = runTrail(r.executions);
      const counts = shardCounts(r.histories);
      expect(trail.rollouts.filter((t) => t.outcome === 'settled')).toHaveLength(counts.done + counts.failed);
      for (const t of trail.rollouts) expect(t.batches.length).toBeGreaterThan(0);
    }
  });

  it('report a round that failed, with its workflow and event', () => {
    const failed = runs.flatMap((r) => runTrail(r.executions).failures);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      expect(f.workflowId).toMatch(/\/shard-\d+$/);
      expect(f.eventId).toBeGreaterThan(0);
      expect(f.message.length).toBeGreaterThan(0);
    }
  });

  it('refuse a file that is not a workflow history', () => {
    expect(() => readExecution('x', { events: [{ eventId: '1', eventType: 'EVENT_TYPE_TIMER_STARTED' }] }, 'histories/bad.json')).toThrow(/histories\/bad\.json is not a workflow history/);
  });
});
