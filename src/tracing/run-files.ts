// Writes the spans of each rollout trace into its run folder's `traces/` segments (one JSON span a
// line, src/tracing/span-line.ts). A trace is routed to a folder when a rollout step starts in this process.
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { segmentLog, type SegmentLog } from '../store/segments';
import { toSpanLine } from './span-line';

export const TRACES_FOLDER = 'traces';

/** Traces routed at once; past it the oldest route goes (a rollout abandoned mid-step leaves one behind). */
const MAX_ROUTES = 200_000;

export class RunTraceFiles implements SpanProcessor {
  private readonly routes = new Map<string, SegmentLog>();
  private readonly logs = new Set<SegmentLog>();
  private warned = false;

  constructor(private readonly onError: (e: unknown) => void) {}

  /** Spans of `traceId` ended in this process from now on are written under `runDir`. */
  route(traceId: string, runDir: string): void {
    if (this.routes.has(traceId)) return;
    if (this.routes.size >= MAX_ROUTES) this.routes.delete(this.routes.keys().next().value!);
    const log = segmentLog(runDir, TRACES_FOLDER);
    this.logs.add(log);
    this.routes.set(traceId, log);
  }

  /** The trace is complete (its root span ended): nothing more is routed for it. */
  unroute(traceId: string): void {
    this.routes.delete(traceId);
  }

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    const log = this.routes.get(span.spanContext().traceId);
    if (!log) return;
    log.append(toSpanLine(span)).catch((e) => {
      // Traces are diagnostics: a full disk shows up where it matters (the results), and is said here once.
      if (this.warned) return;
      this.warned = true;
      this.onError(e);
    });
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.logs].map((l) => l.idle()));
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }
}
