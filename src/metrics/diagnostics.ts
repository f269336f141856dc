// Per-rollout diagnostics (tokens, turns, tool calls, where the time went, attempts) read off a
// rollout's journal, and their distributions per environment, agent and model over a run.
import type { RolloutDiagnostics } from '../schemas/records';
import type { Episode } from '../store/journal';
import { summarize, type Summary } from './stats';

const round1 = (x: number) => Math.round(x * 10) / 10;

/** A tool reply is failed when its HTTP-style status is not 2xx (bad arguments, unknown tool, a tool's own error). */
const failedStatus = (status: number) => status < 200 || status >= 300;

/**
 * The diagnostics of a rollout whose episode (verify included) is complete, recorded at `recordedAtMs`.
 * Latencies add up the calls the journal kept, so a resumed rollout keeps those of the calls before a
 * crash; `total` is wall time from when its shard scheduled it to its record (docs/metrics.md).
 */
export function rolloutDiagnostics(episode: Episode, recordedAtMs: number): RolloutDiagnostics {
  let input = 0;
  let output = 0;
  let reasoning = 0;
  let model = 0;
  let tool = 0;
  let toolCalls = 0;
  let failedToolCalls = 0;
  for (const turn of episode.turns) {
    const usage = turn.model.usage;
    if (usage) {
      input += usage.input_tokens;
      output += usage.output_tokens;
      reasoning += usage.output_tokens_details?.reasoning_tokens ?? 0;
    }
    model += turn.model.latencyMs ?? 0;
    for (const call of turn.tools) {
      toolCalls++;
      if (failedStatus(call.status)) failedToolCalls++;
      tool += call.latencyMs ?? 0;
    }
    tool += turn.env?.latencyMs ?? 0;
  }
  const verify = episode.verify?.latencyMs ?? 0;
  const queueing = episode.seed?.queueingMs ?? 0;
  const startedAt = episode.seed?.startedAtMs;
  const played = startedAt === undefined ? model + tool + verify : Math.max(0, recordedAtMs - startedAt);
  return {
    input_tokens: input,
    output_tokens: output,
    reasoning_tokens: reasoning,
    turns: episode.turns.length,
    tool_calls: toolCalls,
    failed_tool_calls: failedToolCalls,
    latency_ms: {
      model: round1(model),
      tool: round1(tool),
      verify: round1(verify),
      sandbox: round1(episode.verify?.sandboxMs ?? 0),
      queueing: round1(queueing),
      total: round1(queueing + played),
    },
    attempts: 1 + episode.failedTries,
  };
}

export const COUNT_FIELDS = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'turns', 'tool_calls', 'failed_tool_calls', 'attempts'] as const;
export const LATENCY_FIELDS = ['model', 'tool', 'verify', 'sandbox', 'queueing', 'total'] as const;

type CountField = (typeof COUNT_FIELDS)[number];
type LatencyField = (typeof LATENCY_FIELDS)[number];

/** Who produced a group of rollouts. */
export interface GroupKey {
  environment: string;
  agent: string;
  model: string;
}

export interface DiagnosticsGroup extends GroupKey {
  /** Rollouts of the group that carry diagnostics (records written before they were kept do not). */
  rollouts: number;
  stats: Record<CountField, Summary | null> & { latency_ms: Record<LatencyField, Summary | null> };
}

/** One column of numbers per diagnostic, per group: what the distributions are computed from, and nothing more. */
export class DiagnosticsAccumulator {
  private readonly groups = new Map<string, { key: GroupKey; columns: Map<string, number[]> }>();

  add(key: GroupKey, d: RolloutDiagnostics): void {
    const id = `${key.environment}\0${key.agent}\0${key.model}`;
    let group = this.groups.get(id);
    if (!group) this.groups.set(id, (group = { key, columns: new Map() }));
    const push = (name: string, x: number) => {
      let column = group.columns.get(name);
      if (!column) group.columns.set(name, (column = []));
      column.push(x);
    };
    for (const f of COUNT_FIELDS) push(f, d[f]);
    for (const f of LATENCY_FIELDS) push(`latency_ms.${f}`, d.latency_ms[f]);
  }

  result(): DiagnosticsGroup[] {
    return [...this.groups.values()].map(({ key, columns }) => {
      const of = (name: string) => summarize(columns.get(name) ?? []);
      return {
        ...key,
        rollouts: columns.get('turns')?.length ?? 0,
        stats: {
          ...(Object.fromEntries(COUNT_FIELDS.map((f) => [f, of(f)])) as Record<CountField, Summary | null>),
          latency_ms: Object.fromEntries(LATENCY_FIELDS.map((f) => [f, of(`latency_ms.${f}`)])) as Record<LatencyField, Summary | null>,
        },
      };
    });
  }
}
