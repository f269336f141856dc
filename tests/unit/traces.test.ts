// A rollout's trace identity and the terminal timeline of `gym eval trace`, on hand-written spans.
import { describe, expect, it } from 'vitest';
import { rolloutTraceIds } from '../../src/tracing/ids';
import { tracingSettingsFromEnv } from '../../src/tracing/provider';
import type { SpanLine } from '../../src/tracing/span-line';
import { formatTimeline } from '../../src/tracing/timeline';

describe('rolloutTraceIds', () => {
  it('gives a rollout the same ids in every process and different ids in another run or rollout', () => {
    const a = rolloutTraceIds('epoch-1', '3-0');
    expect(a).toEqual(rolloutTraceIds('epoch-1', '3-0'));
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(rolloutTraceIds('epoch-2', '3-0').traceId).not.toBe(a.traceId);
    expect(rolloutTraceIds('epoch-1', '3-1').traceId).not.toBe(a.traceId);
  });
});

describe('tracingSettingsFromEnv', () => {
  it('writes trace files by default and exports over OTLP only with an endpoint', () => {
    expect(tracingSettingsFromEnv({})).toEqual({ files: true, otlp: false });
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ files: true, otlp: 'http/protobuf' });
    expect(tracingSettingsFromEnv({ GYMFLOW_TRACES: 'off', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' })).toEqual({ files: false, otlp: 'http/protobuf' });
    expect(tracingSettingsFromEnv({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' })).toEqual({ files: false, otlp: false });
  });

  it('sends protobuf unless the standard protocol variables ask for JSON, the traces-specific one first', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' };
    expect(tracingSettingsFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).otlp).toBe('http/json');
    expect(tracingSettingsFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).otlp).toBe('http/protobuf');
    expect(tracingSettingsFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' ', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).otlp).toBe('http/json');
    // Without an endpoint the protocol is not read, so a stray value elsewhere cannot break a run.
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).otlp).toBe(false);
  });

  it('names the variable when its value is not understood', () => {
    expect(() => tracingSettingsFromEnv({ GYMFLOW_TRACES: 'yes' })).toThrow(/GYMFLOW_TRACES must be "file" or "off", not "yes"/);
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be "http\/protobuf" or "http\/json" .*not "grpc"/,
    );
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be/);
  });
});

const T = 'a'.repeat(32);
const BASE = 1_700_000_000_000_000_000n;
function span(name: string, id: string, parent: string | undefined, startMs: number, endMs: number, extra: Partial<SpanLine> = {}): SpanLine {
  return {
    trace_id: T,
    span_id: id.padStart(16, '0'),
    ...(parent && { parent_span_id: parent.padStart(16, '0') }),
    name,
    kind: 'internal',
    start_time_unix_nano: String(BASE + BigInt(startMs * 1e6)),
    end_time_unix_nano: String(BASE + BigInt(endMs * 1e6)),
    status: { code: 'unset' },
    attributes: {},
    links: [],
    service: 'gymflow-worker',
    ...extra,
  };
}

describe('formatTimeline', () => {
  it('indents children under parents in start order, with offsets from the first span and durations', () => {
    const lines = formatTimeline([
      span('verify', '4', '1', 30, 32.5),
      span('turn 1', '2', '1', 0.5, 20),
      span('environment POST /x', '5', '3', 12, 14, { service: 'gymflow-env-server', kind: 'server' }),
      span('tool x', '3', '2', 11, 15, { status: { code: 'error', message: 'boom' } }),
      span('rollout 0-0', '1', undefined, 0, 33, { attributes: { 'gymflow.rollout.id': '0-0', 'gymflow.reward': 1 } }),
    ]);
    expect(lines).toEqual([
      `trace ${T}: 5 spans over 33.0 ms`,
      '       start     duration  span',
      '     +0.0 ms      33.0 ms  rollout 0-0  [reward=1]',
      '     +0.5 ms      19.5 ms    turn 1',
      '    +11.0 ms       4.0 ms      tool x  [ERROR boom]',
      '    +12.0 ms       2.0 ms        environment POST /x  [service=gymflow-env-server]',
      '    +30.0 ms       2.5 ms    verify',
    ]);
  });

  it('shows a span whose parent never reached the files at the top, saying so', () => {
    const lines = formatTimeline([span('turn 2', '2', '9', 0, 1)]);
    expect(lines[2]).toBe('     +0.0 ms       1.0 ms  turn 2 (parent not in the trace files)');
  });
});
