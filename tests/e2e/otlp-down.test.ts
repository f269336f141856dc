// An OTLP receiver that is down: exporting fails without failing whoever flushes (the worker does when it
// stops), and each failure is a warning in the process's log rather than silence.
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { installTracing } from '../../src/tracing/provider';
import { releasePort, reservePort } from '../helpers/ports';

it('logs failed OTLP exports as warnings, in the background and on flush, and never throws them', async () => {
  // Reserved and never listened on: connections to it are refused.
  const port = await reservePort();
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const messages = () => lines.map((l) => l.msg).join('\n');
  try {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
    const tracing = installTracing('gymflow-test', logger, { files: false, otlp: 'http/protobuf' })!;
    // Exported by the batch processor's timer: its failure reaches the log through OpenTelemetry's diag logger.
    tracing.tracer.startSpan('sent in the background').end();
    await expect.poll(messages, { timeout: 60_000 }).toMatch(/^OpenTelemetry: .*ECONNREFUSED/m);
    tracing.tracer.startSpan('sent on flush').end();
    await expect(tracing.flush()).resolves.toBeUndefined();
    expect(messages()).toMatch(/^could not export spans over OTLP/m);
    expect(lines.every((l) => l.level === 40)).toBe(true);
  } finally {
    releasePort(port);
  }
});
