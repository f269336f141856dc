// The trace of one rollout: its steps' spans (started by the activities, in whichever process runs
// them) hang under a root span whose ids come from the run's epoch and the rollout id; the root itself
// is written when the rollout settles, so a trace is complete exactly when its rollout is.
import { context, INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags, type Attributes, type Span } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { rolloutTraceIds } from './ids';
import { activeTracing } from './provider';
import { inSpan } from './spans';

export interface RolloutTraceKey {
  runDir: string;
  epoch: string;
  rolloutId: string;
}

/** When this process first saw each rollout in flight: the root span's start. */
const firstSeen = new Map<string, [number, number]>();
const MAX_FIRST_SEEN = 200_000;

// The SDK starts a span without an explicit start at Date.now(), in whole milliseconds; a finer or other
// clock here would put the root after first steps that start within the same millisecond.
function hrNow(): [number, number] {
  return millisToHrTime(Date.now());
}

/** Runs one step of a rollout in a span of the rollout's trace, linked to the Temporal activity span running it. */
export function inRolloutStep<T>(key: RolloutTraceKey, name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  const tracing = activeTracing();
  if (!tracing) return fn(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  const ids = rolloutTraceIds(key.epoch, key.rolloutId);
  tracing.files?.route(ids.traceId, key.runDir);
  if (!firstSeen.has(ids.traceId)) {
    if (firstSeen.size >= MAX_FIRST_SEEN) firstSeen.delete(firstSeen.keys().next().value!);
    firstSeen.set(ids.traceId, hrNow());
  }
  const activity = trace.getSpan(context.active());
  const root = trace.setSpanContext(ROOT_CONTEXT, { traceId: ids.traceId, spanId: ids.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  return inSpan(name, { attributes: { 'gymflow.rollout.id': key.rolloutId, ...attributes }, parent: root, links: activity ? [activity] : [] }, fn);
}

/** Writes the rollout's root span: recorded with its reward, or failed (sent to the sidecar). */
export function endRolloutTrace(key: RolloutTraceKey, attributes: Attributes, failure?: string): void {
  const tracing = activeTracing();
  if (!tracing) return;
  const ids = rolloutTraceIds(key.epoch, key.rolloutId);
  tracing.files?.route(ids.traceId, key.runDir);
  const startTime = firstSeen.get(ids.traceId) ?? hrNow();
  firstSeen.delete(ids.traceId);
  const span = tracing.ids.withIds(ids, () =>
    tracing.tracer.startSpan(`rollout ${key.rolloutId}`, { root: true, startTime, attributes: { 'gymflow.rollout.id': key.rolloutId, ...attributes } }, ROOT_CONTEXT),
  );
  if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure.slice(0, 500) });
  span.end();
  tracing.files?.unroute(ids.traceId);
}
