// `gym eval trace`: a rollout's spans read back from the run folder's `traces/` segments and shown as
// an indented tree with each span's start (from the trace's first span) and duration.
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TRACES_FOLDER } from './run-files';
import { SpanLine } from './span-line';

async function* spanLines(runDir: string): AsyncGenerator<SpanLine> {
  const dir = path.join(runDir, TRACES_FOLDER);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()) {
    for await (const text of createInterface({ input: createReadStream(path.join(dir, name)), crlfDelay: Infinity })) {
      if (!text.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // A line cut short by a killed worker: the spans around it still count.
        continue;
      }
      const parsed = SpanLine.safeParse(value);
      if (parsed.success) yield parsed.data;
    }
  }
}

/** Every span of the traces of `rolloutId` (more than one trace only if the run was started again under a new epoch). */
export async function readRolloutSpans(runDir: string, rolloutId: string): Promise<SpanLine[]> {
  // Two passes keep memory to the rollout's own spans however large the run.
  const traces = new Set<string>();
  for await (const span of spanLines(runDir)) if (span.attributes['gymflow.rollout.id'] === rolloutId) traces.add(span.trace_id);
  const spans: SpanLine[] = [];
  if (traces.size === 0) return spans;
  for await (const span of spanLines(runDir)) if (traces.has(span.trace_id)) spans.push(span);
  return spans;
}

const HIDDEN = new Set(['gymflow.rollout.id', 'gymflow.task_index', 'gymflow.rollout_index']);

function ms(nanos: bigint): string {
  return `${(Number(nanos) / 1e6).toFixed(1)} ms`;
}

function details(span: SpanLine): string {
  const parts = Object.entries(span.attributes)
    .filter(([k, v]) => !HIDDEN.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'))
    .map(([k, v]) => `${k.replace(/^gymflow\./, '')}=${String(v)}`);
  if (span.status.code === 'error') parts.unshift(`ERROR ${span.status.message ?? ''}`.trim());
  if (span.service !== 'gymflow-worker') parts.unshift(`service=${span.service}`);
  return parts.length ? `  [${parts.join(' ')}]` : '';
}

/** The tree of each trace, children by start time; a span whose parent is not in the file is shown at the top. */
export function formatTimeline(spans: readonly SpanLine[]): string[] {
  const out: string[] = [];
  const byTrace = new Map<string, SpanLine[]>();
  for (const s of spans) byTrace.set(s.trace_id, [...(byTrace.get(s.trace_id) ?? []), s]);
  for (const [traceId, members] of byTrace) {
    const ids = new Set(members.map((s) => s.span_id));
    const children = new Map<string, SpanLine[]>();
    const tops: SpanLine[] = [];
    for (const s of members) {
      if (s.parent_span_id && ids.has(s.parent_span_id)) children.set(s.parent_span_id, [...(children.get(s.parent_span_id) ?? []), s]);
      else tops.push(s);
    }
    const start = (s: SpanLine) => BigInt(s.start_time_unix_nano);
    const first = members.reduce((m, s) => (start(s) < m ? start(s) : m), start(members[0]!));
    const last = members.reduce((m, s) => (BigInt(s.end_time_unix_nano) > m ? BigInt(s.end_time_unix_nano) : m), 0n);
    out.push(`trace ${traceId}: ${members.length} spans over ${ms(last - first)}`);
    out.push(`${'start'.padStart(12)} ${'duration'.padStart(12)}  span`);
    const walk = (s: SpanLine, depth: number, orphan: boolean) => {
      const offset = `+${ms(start(s) - first)}`.padStart(12);
      const duration = ms(BigInt(s.end_time_unix_nano) - start(s)).padStart(12);
      out.push(`${offset} ${duration}  ${'  '.repeat(depth)}${s.name}${orphan ? ' (parent not in the trace files)' : ''}${details(s)}`);
      for (const c of (children.get(s.span_id) ?? []).sort((a, b) => (start(a) < start(b) ? -1 : start(a) > start(b) ? 1 : 0))) walk(c, depth + 1, false);
    };
    for (const t of tops.sort((a, b) => (start(a) < start(b) ? -1 : 1))) walk(t, 0, !!t.parent_span_id);
  }
  return out;
}
