// The OTLP/HTTP span exporter in the encoding the standard OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL variable asks
// for: protobuf (the OpenTelemetry default) or JSON. Endpoint, headers and timeout come from the standard variables.
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { GymError } from '../errors';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The signal-specific variable wins over the general one, as the OpenTelemetry specification says. */
export function otlpProtocolFromEnv(env: NodeJS.ProcessEnv): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[name]?.trim() || 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
  throw new GymError('BAD_INPUT', `${name} must be "http/protobuf" or "http/json" (Gymflow exports over OTLP/HTTP; gRPC is not supported), not "${value}"`);
}

export function otlpTraceExporter(protocol: OtlpProtocol): SpanExporter {
  if (protocol === 'http/json') return new JsonTraceExporter();
  // The HTTP exporter package only speaks JSON; some receivers (MLflow's among them) keep span links only from protobuf.
  const options = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  return new OTLPExporterBase<ReadableSpan[]>(createOtlpHttpExportDelegate(options, ProtobufTraceSerializer));
}
