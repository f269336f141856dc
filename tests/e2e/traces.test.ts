// Traces against a real OTLP receiver, MLflow's tracking server (`POST /v1/traces`): every rollout of a
// durable run, in both grains, is one connected trace — in the run folder's trace files and at MLflow alike —
// with gateway, tool, environment-server and Temporal activity spans joined to it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalTrace } from '../../src/cli/commands/eval-trace';
import { getEnvironment } from '../../src/environments/registry';
import { remoteEnvironmentName } from '../../src/environments/names';
import { startEnvironmentServer } from '../../src/environments/server';
import { startGateway } from '../../src/gateway/server';
import { activeTracing, installTracing } from '../../src/tracing/provider';
import { SpanLine } from '../../src/tracing/span-line';
import { startMlflowServer, type MlflowServer } from '../helpers/mlflow-server';
import { createExperiment, MLFLOW_EXPERIMENT_HEADER, receivedTraces, type ReceivedSpan, type ReceivedTrace } from '../helpers/mlflow-traces';
import { quietLogger, runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step');
const MCQA = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');

let mlflow: MlflowServer;
let experimentId: string;
let server: TestServer;
let envServer: Awaited<ReturnType<typeof startEnvironmentServer>>;
beforeAll(async () => {
  [mlflow, server] = await Promise.all([startMlflowServer(), startTestServer()]);
  experimentId = await createExperiment(mlflow, 'gymflow-traces');
  // What a user sets to send spans to MLflow: its base URL, and the experiment in the standard headers variable.
  // Read once, when this test process sets tracing up (protobuf, the default); its workers use the same setup.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = mlflow.url;
  process.env.OTEL_EXPORTER_OTLP_HEADERS = `${MLFLOW_EXPERIMENT_HEADER}=${experimentId}`;
  installTracing('gymflow-worker', quietLogger);
  envServer = await startEnvironmentServer({ env: getEnvironment('example_multi_step'), logger: quietLogger });
}, 300_000);
afterAll(async () => {
  await envServer?.close();
  await server?.stop();
  await mlflow?.stop();
});

function fileSpans(runDir: string): SpanLine[] {
  const dir = path.join(runDir, 'traces');
  return readdirSync(dir).flatMap((f) =>
    readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => SpanLine.parse(JSON.parse(l))),
  );
}

function recordedIds(runDir: string): string[] {
  return readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)._ng_rollout_id);
}

/** Each rollout's trace: one root named after it, every other span's parent in the same trace. */
function treesByRollout(spans: { traceId: string; spanId: string; parentSpanId: string; name: string }[], ids: string[]) {
  const trees = new Map<string, typeof spans>();
  for (const id of ids) {
    const roots = spans.filter((s) => s.name === `rollout ${id}`);
    expect(roots, `root span of rollout ${id}`).toHaveLength(1);
    const root = roots[0]!;
    expect(root.parentSpanId).toBe('');
    const members = spans.filter((s) => s.traceId === root.traceId);
    const inTrace = new Set(members.map((s) => s.spanId));
    for (const s of members) if (s !== root) expect(inTrace.has(s.parentSpanId), `parent of ${s.name} in rollout ${id}'s trace`).toBe(true);
    trees.set(id, members);
  }
  expect(new Set([...trees.values()].map((m) => m[0]!.traceId)).size).toBe(ids.length);
  return trees;
}

const asReceived = (s: SpanLine) => ({ traceId: s.trace_id, spanId: s.span_id, parentSpanId: s.parent_span_id ?? '', name: s.name });

/** Every span MLflow holds for these traces once it holds each of `spanIds`; sends what this process has ended first. */
async function received(traceIds: Iterable<string>, spanIds: string[]): Promise<{ traces: Map<string, ReceivedTrace>; spans: ReceivedSpan[] }> {
  await activeTracing()!.flush();
  const all = (traces: Map<string, ReceivedTrace>) => [...traces.values()].flatMap((t) => t.spans);
  const traces = await receivedTraces(mlflow, traceIds, (got) => {
    const have = new Set(all(got).map((s) => s.spanId));
    return spanIds.every((id) => have.has(id));
  });
  // The experiment came from the headers variable: MLflow files each trace under it, named after the OpenTelemetry trace id.
  for (const [id, t] of traces) expect([t.mlflowTraceId, t.experimentId]).toEqual([`tr-${id}`, experimentId]);
  return { traces, spans: all(traces) };
}

const SECRETS = /bearer|cookie|session=|authorization/i;

describe('rollout traces', () => {
  it('writes one connected trace per rollout of a turn-grain run, to the run folder and to MLflow over OTLP', async () => {
    const runDir = await tempDir('gymflow-traces-');
    const envName = remoteEnvironmentName(envServer.url, ['get_synonym_value', 'extract_synonym_values']);
    const config = runConfig({ runDir, envName, inputFile: path.join(FIXTURES, 'example.jsonl'), model: { env: envName, replay_files: [path.join(FIXTURES, 'example_rollouts.jsonl')] } });
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(5);

    const ids = recordedIds(runDir);
    const local = fileSpans(runDir);
    const trees = treesByRollout(local.map(asReceived), ids);
    for (const [id, members] of trees) {
      const names = members.map((s) => s.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'turn 1',
          'model',
          'gateway POST /v1/responses',
          'tool get_synonym_value',
          'POST /get_synonym_value',
          'environment POST /get_synonym_value',
          'finish',
          'verify',
          'record',
        ]),
      );
      // Remote calls cross HTTP: the environment server's span is a child of the client's request span.
      const client = members.find((s) => s.name === 'POST /get_synonym_value')!;
      expect(members.find((s) => s.name === 'environment POST /get_synonym_value')!.parentSpanId).toBe(client.spanId);
      expect(local.filter((s) => s.trace_id === members[0]!.traceId).every((s) => s.attributes['gymflow.rollout.id'] === undefined || s.attributes['gymflow.rollout.id'] === id)).toBe(true);
    }

    // MLflow got the same spans, with their parents and links.
    const runTraces = new Set(local.map((s) => s.trace_id));
    const { spans: atMlflow } = await received(
      runTraces,
      local.map((s) => s.span_id),
    );
    treesByRollout(atMlflow, ids);
    const byId = new Map(atMlflow.map((s) => [s.spanId, s]));
    expect(local.filter((s) => byId.get(s.span_id)?.parentSpanId !== (s.parent_span_id ?? '')).map((s) => s.name)).toEqual([]);
    const turns = local.filter((s) => s.name.startsWith('turn '));
    expect(turns.map((s) => byId.get(s.span_id)!.links)).toEqual(turns.map((s) => s.links.map((l) => ({ traceId: l.trace_id, spanId: l.span_id }))));

    // Temporal's spans reached MLflow too, in the workflows' traces: each turn links to the activity span that ran it.
    const links = turns.flatMap((s) => s.links);
    expect(links.length).toBeGreaterThan(0);
    const { spans: temporal } = await received(
      links.map((l) => l.trace_id),
      links.map((l) => l.span_id),
    );
    const names = new Map(temporal.map((s) => [s.spanId, s.name]));
    expect(new Set(links.map((l) => names.get(l.span_id)))).toEqual(new Set(['RunActivity:advanceRollouts']));
    expect(temporal.some((s) => s.name === 'RunWorkflow:shardWorkflow')).toBe(true);

    // No secrets: neither the gateway's token nor the session cookie appears in any span, written or received.
    expect(JSON.stringify(local.map((s) => s.attributes))).not.toMatch(SECRETS);
    expect(JSON.stringify([...atMlflow, ...temporal].map((s) => s.attributes))).not.toMatch(SECRETS);

    // `gym eval trace` prints the tree: each child indented under its parent, with start and duration.
    const lines: string[] = [];
    await evalTrace([runDir, ids[0]!], quietLogger, (l) => lines.push(l));
    const rows = lines.slice(2).map((l) => /^ *\+[\d.]+ ms +[\d.]+ ms {2}( *)(.*?)(?: {2}\[.*)?$/.exec(l));
    expect(rows.every(Boolean), lines.join('\n')).toBe(true);
    const indent = (name: string) => {
      const row = rows.find((r) => r![2] === name);
      expect(row, `a line for ${name} in:\n${lines.join('\n')}`).toBeDefined();
      return row![1]!.length;
    };
    expect(lines[0]).toMatch(/^trace [0-9a-f]{32}: \d+ spans over [\d.]+ ms$/);
    expect(indent(`rollout ${ids[0]}`)).toBe(0);
    expect(indent('turn 1')).toBe(2);
    expect(indent('tool get_synonym_value')).toBe(4);
    expect(indent('POST /get_synonym_value')).toBe(6);
    expect(indent('environment POST /get_synonym_value')).toBe(8);
    expect(lines.find((l) => l.includes(`rollout ${ids[0]}`))).toMatch(/^ +\+0\.0 ms +[\d.]+ ms {2}rollout .*outcome=recorded reward=1/);
  });

  it('writes one connected trace per rollout of a rollout-grain run', async () => {
    const runDir = await tempDir('gymflow-traces-batch-');
    const config = runConfig({ runDir, envName: 'mcqa', inputFile: MCQA, numRepeats: 2, limit: 3, durability: 'rollout' });
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(6);
    const ids = recordedIds(runDir);
    const local = fileSpans(runDir);
    const trees = treesByRollout(local.map(asReceived), ids);
    for (const members of trees.values()) expect(members.map((s) => s.name)).toEqual(expect.arrayContaining(['turn 1', 'model', 'gateway POST /v1/responses', 'verify', 'record']));
    const { spans: atMlflow } = await received(
      new Set(local.map((s) => s.trace_id)),
      local.map((s) => s.span_id),
    );
    treesByRollout(atMlflow, ids);
  });

  it('joins the trace named by a traceparent header at the gateway and the environment server', async () => {
    const gateway = await startGateway({ logger: quietLogger });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    try {
      const models = await request(`${gateway.url}/models`, { headers: { authorization: `Bearer ${gateway.token}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      expect(models.statusCode).toBe(200);
      await models.body.text();
      const seeded = await request(`${envServer.url}/seed_session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b8-01` },
        body: JSON.stringify(JSON.parse(readFileSync(path.join(FIXTURES, 'example.jsonl'), 'utf8').split('\n')[0]!)),
      });
      expect(seeded.statusCode).toBe(200);
      await seeded.body.text();
    } finally {
      await gateway.close();
    }
    // Which span ids the servers chose is unknown here, so wait for their two spans by count.
    await activeTracing()!.flush();
    const traces = await receivedTraces(mlflow, [traceId], (got) => (got.get(traceId)?.spans.length ?? 0) >= 2);
    const ofTrace = traces.get(traceId)!.spans.map((s) => [s.name, s.parentSpanId]);
    expect(ofTrace).toEqual(
      expect.arrayContaining([
        ['gateway GET /v1/models', '00f067aa0ba902b7'],
        ['environment POST /seed_session', '00f067aa0ba902b8'],
      ]),
    );
  });
});
