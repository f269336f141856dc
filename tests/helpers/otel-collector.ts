// A real OpenTelemetry Collector for trace tests: built once from the Go module proxy with the
// collector builder (only the OTLP receiver and the file exporter), cached beside the Temporal CLI,
// started per test file on a reserved loopback port, writing what it receives to a JSONL file.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { releasePort, reservePort } from './ports';

const run = promisify(execFile);

/** One collector release for the builder and every component (the file exporter builds at v0.161.0, not later). */
export const OTELCOL_VERSION = 'v0.161.0';
const BINARY = `otelcol-gymflow-${OTELCOL_VERSION}`;

export function collectorPath(): string {
  return path.join(process.env.GYMFLOW_CACHE_DIR ?? path.join(PACKAGE_ROOT, '.gymflow', 'bin'), BINARY);
}

function goBinary(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir && existsSync(path.join(dir, 'go'))) return path.join(dir, 'go');
  if (existsSync('/usr/local/go/bin/go')) return '/usr/local/go/bin/go';
  throw new Error('building the OpenTelemetry Collector for the trace tests needs a Go toolchain (1.25+) on PATH');
}

/** The collector binary, built first if it is not cached (a few minutes the first time). */
export async function ensureCollector(log: (line: string) => void = () => {}): Promise<string> {
  const target = collectorPath();
  if (existsSync(target)) return target;
  const go = goBinary();
  const staging = `${path.dirname(target)}/.otelcol-staging-${process.pid}`;
  await mkdir(staging, { recursive: true });
  const env = { ...process.env, GOBIN: staging, CGO_ENABLED: '0' };
  try {
    const started = Date.now();
    log(`building the OpenTelemetry Collector builder ${OTELCOL_VERSION} from the Go module proxy`);
    await run(go, ['install', `go.opentelemetry.io/collector/cmd/builder@${OTELCOL_VERSION}`], { env, maxBuffer: 64 * 1024 * 1024 });
    const manifest = path.join(staging, 'builder.yaml');
    await writeFile(
      manifest,
      [
        'dist:',
        '  name: otelcol-gymflow',
        '  description: OTLP receiver and file exporter for Gymflow trace tests',
        `  output_path: ${path.join(staging, 'dist')}`,
        'receivers:',
        `  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver ${OTELCOL_VERSION}`,
        'exporters:',
        `  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter ${OTELCOL_VERSION}`,
        '',
      ].join('\n'),
    );
    log('building the collector (OTLP receiver, file exporter)');
    await run(path.join(staging, 'builder'), ['--config', manifest, '--ldflags=-s -w'], { env: { ...env, GOBIN: undefined }, maxBuffer: 64 * 1024 * 1024 });
    await rename(path.join(staging, 'dist', 'otelcol-gymflow'), target);
    log(`collector built in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return target;
}

export interface Collector {
  /** OTLP/HTTP base URL, e.g. `http://127.0.0.1:PORT` (traces go to `/v1/traces`). */
  endpoint: string;
  /** Every span received so far, flattened out of the OTLP/JSON export requests the file exporter wrote. */
  spans(): Promise<ReceivedSpan[]>;
  stop(): Promise<void>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
}

function plain(v: OtlpValue): unknown {
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export async function startCollector(dir: string): Promise<Collector> {
  const binary = await ensureCollector();
  const port = await reservePort();
  const out = path.join(dir, 'received.jsonl');
  const config = path.join(dir, 'otelcol.yaml');
  await writeFile(
    config,
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      http:',
      `        endpoint: 127.0.0.1:${port}`,
      'exporters:',
      '  file:',
      `    path: ${out}`,
      '    flush_interval: 100ms',
      'service:',
      '  telemetry:',
      '    logs: { level: warn }',
      // The collector's own metrics would listen on :8888, which parallel test files would fight over.
      '    metrics: { level: none }',
      '  pipelines:',
      '    traces: { receivers: [otlp], exporters: [file] }',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(binary, ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !(await listening(port)); i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`the collector did not start listening on ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async spans() {
      const text = existsSync(out) ? await readFile(out, 'utf8') : '';
      return text
        .split('\n')
        .filter(Boolean)
        .flatMap((line) =>
          (JSON.parse(line).resourceSpans ?? []).flatMap((rs: any) => {
            const service = plain(rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value ?? {}) as string;
            return (rs.scopeSpans ?? []).flatMap((ss: any) =>
              (ss.spans ?? []).map((s: any) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                service,
                attributes: Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, plain(a.value)])),
              })),
            );
          }),
        );
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      releasePort(port);
    },
  };
}
