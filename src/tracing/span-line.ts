// One finished span as a line of the run folder's `traces/` segments: the shape written by the worker
// and read by `gym eval trace`, defined once. Times are Unix nanoseconds as decimal strings (as in OTLP/JSON).
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';

export const SpanLine = z.object({
  trace_id: z.string().regex(/^[0-9a-f]{32}$/),
  span_id: z.string().regex(/^[0-9a-f]{16}$/),
  parent_span_id: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  name: z.string(),
  /** OpenTelemetry's SpanKind: internal, server, client, producer, consumer. */
  kind: z.enum(['internal', 'server', 'client', 'producer', 'consumer']),
  start_time_unix_nano: z.string().regex(/^\d+$/),
  end_time_unix_nano: z.string().regex(/^\d+$/),
  status: z.object({ code: z.enum(['unset', 'ok', 'error']), message: z.string().optional() }),
  attributes: z.record(z.string(), z.unknown()),
  links: z.array(z.object({ trace_id: z.string(), span_id: z.string() })),
  service: z.string(),
});
export type SpanLine = z.infer<typeof SpanLine>;

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS = ['unset', 'ok', 'error'] as const;

function nanos([seconds, nanoseconds]: [number, number]): string {
  return (BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)).toString();
}

export function toSpanLine(span: ReadableSpan): SpanLine {
  const { traceId, spanId } = span.spanContext();
  return {
    trace_id: traceId,
    span_id: spanId,
    ...(span.parentSpanId && { parent_span_id: span.parentSpanId }),
    name: span.name,
    kind: KINDS[span.kind] ?? 'internal',
    start_time_unix_nano: nanos(span.startTime),
    end_time_unix_nano: nanos(span.endTime),
    status: { code: STATUS[span.status.code] ?? 'unset', ...(span.status.message && { message: span.status.message }) },
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({ trace_id: l.context.traceId, span_id: l.context.spanId })),
    service: String(span.resource.attributes['service.name'] ?? 'gymflow'),
  };
}
