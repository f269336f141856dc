// The per-rollout audit summary `gym eval history` writes beside the exported histories: each rollout's
// trail through the workflows joined to what the run store recorded for it.
import path from 'node:path';
import { RunStore } from '../store/run-store';
import { writeFileAtomic } from '../store/jsonl';
import { formatTrail, runTrail, type RolloutTrail, type RunTrail } from './rollout-trail';
import type { Execution } from './history-events';
import { historiesDir } from './history-files';

export interface StoredOutcome {
  /** `rollouts.jsonl`, `failures.jsonl`, or neither (not finished). */
  file?: 'rollouts.jsonl' | 'failures.jsonl';
  reward?: number;
  failure_class?: string;
  /** Attempts of the rollout's steps, as its record or sidecar line counts them. */
  attempts?: number;
}

export interface AuditSummary {
  durability: string;
  executions: { workflow_id: string; run_id: string; type: string; end: string; events: number }[];
  failures: RunTrail['failures'];
  rollouts: (RolloutTrail & { stored: StoredOutcome })[];
}

async function storedOutcomes(runDir: string): Promise<Map<string, StoredOutcome>> {
  const out = new Map<string, StoredOutcome>();
  await new RunStore(runDir).scanResults({
    rollout: (r) => void out.set(r._ng_rollout_id, { file: 'rollouts.jsonl', reward: r.reward, attempts: r._gf_diagnostics?.attempts }),
    failure: (f) => void out.set(f._ng_rollout_id, { file: 'failures.jsonl', failure_class: f._ng_failure_class, attempts: f.attempt }),
  });
  return out;
}

export async function summarizeRun(runDir: string, executions: readonly Execution[]): Promise<AuditSummary> {
  const trail = runTrail(executions);
  const stored = await storedOutcomes(runDir);
  return {
    durability: trail.durability,
    executions: executions.map((e) => ({ workflow_id: e.workflowId, run_id: e.runId, type: e.type, end: e.end, events: e.events })),
    failures: trail.failures,
    rollouts: trail.rollouts.map((t) => ({ ...t, stored: stored.get(t.rollout_id) ?? {} })),
  };
}

export function formatStored(s: StoredOutcome): string {
  if (s.file === 'rollouts.jsonl') return `rollouts.jsonl reward ${s.reward}${s.attempts !== undefined ? `, ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}` : ''}`;
  if (s.file === 'failures.jsonl') return `failures.jsonl ${s.failure_class} after ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}`;
  return 'not in the results files';
}

export function formatSummaryLines(summary: AuditSummary): string[] {
  const lines = [`${summary.executions.length} executions, ${summary.durability} grain; per rollout: shard, executions (#0 first, +1 per continue-as-new), steps, retries, end | run store`];
  for (const f of summary.failures) lines.push(`failed: ${f.workflowId} (run ${f.runId}) event ${f.eventId}: ${f.message}`);
  for (const r of summary.rollouts) lines.push(`${formatTrail(r)} | ${formatStored(r.stored)}`);
  return lines;
}

/** Writes `histories/summary.json` (for tools) and `histories/summary.txt` (for people). */
export async function writeSummary(runDir: string, summary: AuditSummary): Promise<{ json: string; text: string }> {
  const json = path.join(historiesDir(runDir), 'summary.json');
  const text = path.join(historiesDir(runDir), 'summary.txt');
  await writeFileAtomic(json, JSON.stringify(summary, null, 2) + '\n');
  await writeFileAtomic(text, formatSummaryLines(summary).join('\n') + '\n');
  return { json, text };
}
