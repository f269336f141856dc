// Spans for library code (gateway, environments, sandboxes, activities) through the OpenTelemetry API
// only: without installed tracing they cost next to nothing, with it they nest under the active span.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import { TRACER_NAME } from './provider';

export { SpanKind, type Context, type Span };

const tracer = () => trace.getTracer(TRACER_NAME);

/** Marks the span failed with the error's message (its own text; GymError messages carry no secrets). */
export function failSpan(span: Span, e: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (e instanceof Error ? e.message : String(e)).slice(0, 500) });
}

/** Runs `fn` in a new span, a child of `parent` (default: the active context), ended when `fn` settles. */
export async function inSpan<T>(name: string, options: { attributes?: Attributes; kind?: SpanKind; parent?: Context; links?: Span[] }, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { attributes: options.attributes, kind: options.kind, links: options.links?.map((s) => ({ context: s.spanContext() })) }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    failSpan(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/** A span that ends later, e.g. with a child process; a child of the active context. */
export function startSpan(name: string, attributes?: Attributes): Span {
  return tracer().startSpan(name, { attributes }, context.active());
}

/** Headers carrying the active context (`traceparent`, `tracestate`), merged into `headers`. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

/** The context a request's `traceparent` names (or none), for the span of a server handling it. */
export function contextFromHeaders(headers: IncomingHttpHeaders): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}
