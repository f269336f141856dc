// What a real MLflow server received on its OTLP endpoint (`POST /v1/traces`), read back through its REST API:
// MLflow keeps one trace per OpenTelemetry trace id, as `tr-<hex trace id>`, in the experiment the request named.
import type { MlflowServer } from './mlflow-server';

/** MLflow's header naming the experiment that received spans go to; its OTLP endpoint refuses requests without it. */
export const MLFLOW_EXPERIMENT_HEADER = 'x-mlflow-experiment-id';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

export interface ReceivedTrace {
  /** MLflow's own id of the trace. */
  mlflowTraceId: string;
  experimentId: string;
  spans: ReceivedSpan[];
}

interface ProtoValue {
  string_value?: string;
  int_value?: number | string;
  double_value?: number;
  bool_value?: boolean;
}

interface ProtoSpan {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  name: string;
  attributes?: { key: string; value?: ProtoValue }[];
  links?: { trace_id: string; span_id: string }[];
}

interface GetTraceResponse {
  trace: { trace_info: { trace_id: string; trace_location: { mlflow_experiment?: { experiment_id: string } } }; spans?: ProtoSpan[] };
}

// The REST API renders the OTLP protobuf span as proto3 JSON, where byte ids are base64.
const hex = (b64: string | undefined) => (b64 ? Buffer.from(b64, 'base64').toString('hex') : '');

// An attribute whose value was empty comes back without one.
const plain = (v: ProtoValue = {}) => v.string_value ?? (v.int_value !== undefined ? Number(v.int_value) : undefined) ?? v.double_value ?? v.bool_value;

export async function createExperiment(mlflow: MlflowServer, name: string): Promise<string> {
  return (await mlflow.api<{ experiment_id: string }>('/api/2.0/mlflow/experiments/create', { name })).experiment_id;
}

/** The trace MLflow holds for an OpenTelemetry trace id, with every span received so far, or undefined before any. */
export async function receivedTrace(mlflow: MlflowServer, traceId: string): Promise<ReceivedTrace | undefined> {
  // allow_partial: a trace whose root has not arrived (or never will, as for Temporal's workflow traces) is still read.
  const res = await fetch(`${mlflow.url}/api/3.0/mlflow/traces/get?trace_id=tr-${traceId}&allow_partial=true`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`MLflow traces/get tr-${traceId}: HTTP ${res.status} ${await res.text()}`);
  const { trace } = (await res.json()) as GetTraceResponse;
  return {
    mlflowTraceId: trace.trace_info.trace_id,
    experimentId: trace.trace_info.trace_location.mlflow_experiment?.experiment_id ?? '',
    spans: (trace.spans ?? []).map((s) => ({
      traceId: hex(s.trace_id),
      spanId: hex(s.span_id),
      parentSpanId: hex(s.parent_span_id),
      name: s.name,
      attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, plain(a.value)])),
      links: (s.links ?? []).map((l) => ({ traceId: hex(l.trace_id), spanId: hex(l.span_id) })),
    })),
  };
}

/**
 * These traces as MLflow holds them, read again every half second until `until` accepts them (spans are
 * exported in batches in the background); past the deadline, an error saying what was still missing.
 */
export async function receivedTraces(
  mlflow: MlflowServer,
  traceIds: Iterable<string>,
  until: (traces: Map<string, ReceivedTrace>) => boolean,
  deadlineMs = 180_000,
): Promise<Map<string, ReceivedTrace>> {
  const ids = [...new Set(traceIds)];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const traces = new Map<string, ReceivedTrace>();
    for (const id of ids) {
      const trace = await receivedTrace(mlflow, id);
      if (trace) traces.set(id, trace);
    }
    if (until(traces)) return traces;
    if (Date.now() > deadline) {
      const counts = ids.map((id) => `${id}: ${traces.get(id)?.spans.length ?? 'none'}`).join(', ');
      throw new Error(`MLflow did not receive the expected spans within ${deadlineMs / 1000} s (spans per trace: ${counts})`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
