// `gym eval show --rollout` as text: one rollout's trail in the histories and what the run store holds
// for it — the episode, its model calls with attempts, its journal while in flight, and the reward.
import { episodeOf } from '../store/journal';
import type { RolloutEvidence } from './rollout-evidence';
import { formatTrail, type RolloutTrail } from './rollout-trail';

const clip = (text: string, n = 100) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
const oneLine = (v: unknown) => clip(typeof v === 'string' ? v.replace(/\s+/g, ' ') : (JSON.stringify(v) ?? ''));

/** One output item of an episode as a line: who said or called what. */
function describeItem(item: Record<string, unknown>): string {
  if (item.type === 'function_call') return `call ${String(item.name)}(${oneLine(item.arguments)})`;
  if (item.type === 'function_call_output') return `  → ${oneLine(item.output)}`;
  if (item.type === 'reasoning') return `reasoning`;
  const content = item.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';
  return `${String(item.role ?? 'assistant')}: ${oneLine(text)}`;
}

export function formatRolloutReport(id: string, trail: RolloutTrail | undefined, ev: RolloutEvidence, historyNote: string): string[] {
  const lines = [`rollout ${id}`];
  if (ev.record) {
    const d = ev.record._gf_diagnostics;
    lines.push(`reward ${ev.record.reward}${ev.record.reward_components ? ` ${JSON.stringify(ev.record.reward_components)}` : ''} (rollouts.jsonl)`);
    if (d)
      lines.push(
        `turns ${d.turns}, tool calls ${d.tool_calls} (${d.failed_tool_calls} failed), attempts ${d.attempts}, tokens ${d.input_tokens} in / ${d.output_tokens} out, ${Math.round(d.latency_ms.total)} ms`,
      );
  } else if (ev.failure) {
    lines.push(`sidecar (failures.jsonl): ${ev.failure._ng_failure_class} at ${ev.failure.stage}, attempt ${ev.failure.attempt}, ${ev.failure.failed_at}: ${ev.failure.message}`);
  } else lines.push('not in rollouts.jsonl or failures.jsonl (not finished)');

  lines.push('', 'history:');
  if (trail) {
    lines.push(`  ${formatTrail(trail)}`);
    for (const s of trail.steps)
      lines.push(
        `  step ${s.step}: ${s.outcome}${s.reward !== undefined ? ` (reward ${s.reward})` : ''} — ${trail.shard} execution #${s.execution} (run ${s.runId}) event ${s.eventId}${s.attempt > 1 ? `, round attempt ${s.attempt}` : ''}`,
      );
    for (const b of trail.batches)
      lines.push(
        `  batch at event ${b.eventId} of ${trail.shard} execution #${b.execution} (run ${b.runId}): ${b.outcome} after ${b.attempts} attempt${b.attempts === 1 ? '' : 's'}${b.failure ? `: ${b.failure}` : ''}`,
      );
  } else lines.push(`  ${historyNote}`);

  if (ev.record) {
    lines.push('', 'episode (rollouts.jsonl):');
    for (const item of ev.record.response.output) lines.push(`  ${describeItem(item as Record<string, unknown>)}`);
  }

  lines.push('', `model calls (model_calls/): ${ev.calls.length}`);
  for (const c of ev.calls) {
    const usage = (c.response as { usage?: { input_tokens?: number; output_tokens?: number } } | undefined)?.usage;
    const status = c.error ? `error ${c.error.code ?? ''} ${oneLine(c.error.message)}`.trim() : `status ${c.status ?? 200}`;
    lines.push(`  step ${c.step} attempt ${c.attempt} ${c.call_id}: ${status}, ${Math.round(c.latency_ms)} ms${usage ? `, ${usage.input_tokens ?? 0} in / ${usage.output_tokens ?? 0} out` : ''}`);
  }
  if (ev.missingCalls.length) lines.push(`  named by the record but not in the call log: ${ev.missingCalls.join(', ')}`);

  if (ev.journal.length) {
    const episode = episodeOf(ev.journal);
    lines.push('', `journal (work/${id}.jsonl, ${ev.journal.length} entries; failed tries ${episode.failedTries}):`);
    for (const t of episode.turns) lines.push(`  step ${t.step}: model ${t.model.callId}, ${t.tools.length} tool call${t.tools.length === 1 ? '' : 's'}${t.env ? `, env done=${t.env.done}` : ''}`);
    if (episode.verify) lines.push(`  verify: reward ${episode.verify.result.reward}`);
  } else lines.push('', `journal: none in work/ (dropped once the rollout was recorded)`);
  return lines;
}
