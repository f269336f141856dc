// The process's OpenTelemetry setup: W3C trace context, async context across awaits, and where spans go —
// the run folder's `traces/` segments (unless GYMFLOW_TRACES=off) and OTLP/HTTP when an endpoint is set.
import { diag, DiagLogLevel, trace, type DiagLogger, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type IdGenerator, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { GymError } from '../errors';
import type { RolloutTraceIds } from './ids';
import { otlpProtocolFromEnv, otlpTraceExporter, type OtlpProtocol } from './otlp';
import { RunTraceFiles } from './run-files';

export const TRACER_NAME = 'gymflow';

export interface TracingSettings {
  /** Spans of rollouts go to `<run>/traces/` segments. */
  files: boolean;
  /** OTLP/HTTP export in this encoding, or none; the exporter reads the endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables. */
  otlp: OtlpProtocol | false;
}

/** From the environment: GYMFLOW_TRACES (`file`, the default, or `off`) and OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT and _PROTOCOL. */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSettings {
  const mode = (env.GYMFLOW_TRACES ?? 'file').trim().toLowerCase();
  if (mode !== 'file' && mode !== 'off') throw new GymError('BAD_INPUT', `GYMFLOW_TRACES must be "file" or "off", not "${env.GYMFLOW_TRACES}"`);
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return { files: !disabled && mode === 'file', otlp: !disabled && !!endpoint && otlpProtocolFromEnv(env) };
}

/**
 * Random ids, except for the one span started inside `withIds`: a rollout's root span takes the ids
 * derived from its run and rollout, so spans written before it (in any process) already point at it.
 */
class RolloutIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private pending: RolloutTraceIds | undefined;

  generateTraceId = (): string => this.pending?.traceId ?? this.random.generateTraceId();
  generateSpanId = (): string => this.pending?.spanId ?? this.random.generateSpanId();

  /** `start` must start exactly one span, synchronously. */
  withIds<T>(ids: RolloutTraceIds, start: () => T): T {
    this.pending = ids;
    try {
      return start();
    } finally {
      this.pending = undefined;
    }
  }
}

export interface Tracing {
  tracer: Tracer;
  resource: Resource;
  /** Every processor in one, for Temporal's workflow span sink. */
  spanProcessor: SpanProcessor;
  files: RunTraceFiles | undefined;
  ids: RolloutIdGenerator;
  /** Writes and sends every span ended so far; a failed export is logged, never thrown. */
  flush(): Promise<void>;
}

let installed: Tracing | undefined;

/** OpenTelemetry's own warnings and errors (a failed export among them) as warnings of this process's log. */
function diagLogger(logger: Logger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) => logger.warn(args.length ? { details: args } : {}, `OpenTelemetry: ${message}`);
  const ignore = () => {};
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}

/** The tracing of this process, once `installTracing` has run; without it every span is a no-op. */
export function activeTracing(): Tracing | undefined {
  return installed;
}

/**
 * Sets up tracing for this process once (later calls return the first setup); `service` names the process
 * kind. With nothing to export (GYMFLOW_TRACES=off and no OTLP endpoint) nothing is set up and spans stay no-ops.
 */
export function installTracing(service: string, logger?: Logger, settings: TracingSettings = tracingSettingsFromEnv()): Tracing | undefined {
  if (installed) return installed;
  if (!settings.files && !settings.otlp) return undefined;
  const resource = new Resource({ 'service.name': service });
  const files = settings.files ? new RunTraceFiles((e) => logger?.warn({ err: e }, 'could not write spans to the run folder; tracing goes on without them')) : undefined;
  const processors: SpanProcessor[] = [
    ...(files ? [files] : []),
    // The exporter logs its own failures through the OpenTelemetry diag logger; a receiver that is down never fails a rollout.
    ...(settings.otlp ? [new BatchSpanProcessor(otlpTraceExporter(settings.otlp), { scheduledDelayMillis: 1000, maxQueueSize: 65_536, maxExportBatchSize: 2048 })] : []),
  ];
  // Without a diag logger the exporter's failures (a receiver that is down, or refuses the request) go nowhere.
  if (logger && settings.otlp) diag.setLogger(diagLogger(logger), DiagLogLevel.WARN);
  const ids = new RolloutIdGenerator();
  const provider = new BasicTracerProvider({ resource, idGenerator: ids, spanProcessors: processors });
  provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
  installed = {
    tracer: trace.getTracer(TRACER_NAME),
    resource,
    spanProcessor: provider.getActiveSpanProcessor(),
    files,
    ids,
    // A receiver that is down fails the flush; that must not fail the run that asked for it.
    flush: () => provider.forceFlush().catch((err: unknown) => logger?.warn({ err }, 'could not export spans over OTLP')),
  };
  // Spans are exported in the background; whatever ended before exit is still written and sent.
  process.once('beforeExit', () => void installed?.flush());
  return installed;
}
