// The MLflow exporter: one MLflow run per export, through the tracking server's REST API (runs/create,
// runs/log-batch, and the mlflow-artifacts API for files), so exporting needs no Python.
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request } from 'undici';
import { GymError } from '../errors';
import type { MlflowConfig } from './config';
import type { ExportInput, ExportResult, Exporter } from './types';

/** MLflow's limits (mlflow/utils/validation.py): per log-batch request, and per key and param value. */
const MAX_METRICS_PER_BATCH = 1000;
const MAX_PARAMS_PER_BATCH = 100;
const MAX_KEY_LENGTH = 250;
const MAX_PARAM_VALUE_LENGTH = 6000;
const REQUEST_TIMEOUT_MS = 30_000;
/** An artifact is streamed; a large rollouts.jsonl gets this long per request. */
const UPLOAD_TIMEOUT_MS = 15 * 60_000;

/**
 * A name MLflow accepts (letters, digits and `_-. :/`, no empty or dot segments, at most 250
 * characters): `pass@1` reads `pass_at_1`, anything else outside the set becomes `_`.
 */
export function mlflowKey(key: string): string {
  const cleaned = key
    .replaceAll('@', '_at_')
    .replace(/[^\w.\- :/]/g, '_')
    .split('/')
    .filter(Boolean)
    .map((s) => (/^\.+$/.test(s) ? s.replaceAll('.', '_') : s))
    .join('/');
  return cleaned.length <= MAX_KEY_LENGTH ? cleaned : `${cleaned.slice(0, 120)}___${cleaned.slice(-(MAX_KEY_LENGTH - 123))}`;
}

/** A file streamed as the request body. */
interface Upload {
  stream: ReadStream;
  size: number;
}

function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

class MlflowClient {
  private readonly base: string;

  constructor(
    uri: string,
    private readonly token: string | undefined,
    private readonly signal: AbortSignal,
  ) {
    this.base = uri.replace(/\/+$/, '');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...extra, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
  }

  private async call(method: 'GET' | 'POST' | 'PUT', route: string, body: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: number; json: Record<string, unknown> }> {
    const url = `${this.base}${route}`;
    const file = body instanceof Object && 'stream' in body ? (body as Upload) : undefined;
    let res;
    try {
      res = await request(url, {
        method,
        headers: this.headers(file ? { 'content-type': 'application/octet-stream', 'content-length': String(file.size) } : { 'content-type': 'application/json' }),
        body: file ? file.stream : body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([this.signal, AbortSignal.timeout(timeoutMs)]),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      throw new GymError('UNREACHABLE', `no MLflow tracking server answers at ${this.base} (${err.code ?? err.cause?.code ?? err.name}: ${err.message})`);
    }
    const text = await res.body.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      json = { message: text.slice(0, 300) };
    }
    return { status: res.statusCode, json };
  }

  /** A call that must succeed; the server's error code and message otherwise. */
  async ok(method: 'GET' | 'POST' | 'PUT', route: string, body?: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.check(method, route, await this.call(method, route, body, timeoutMs));
  }

  private check(method: string, route: string, { status, json }: { status: number; json: Record<string, unknown> }): Record<string, unknown> {
    if (status >= 200 && status < 300) return json;
    const what = `MLflow ${method} ${route.split('?')[0]} answered HTTP ${status}${json.error_code ? ` ${String(json.error_code)}` : ''}: ${String(json.message ?? '').slice(0, 300)}`;
    if (status === 401 || status === 403) throw new GymError('SETUP_FAILED', `${what} (check the token named by exporters.mlflow.token_env)`);
    throw new GymError(status >= 500 ? 'UNREACHABLE' : 'BAD_INPUT', what);
  }

  async experimentId(name: string): Promise<string> {
    const byName = `/api/2.0/mlflow/experiments/get-by-name?experiment_name=${encodeURIComponent(name)}`;
    const idOf = (json: Record<string, unknown>) => String((json.experiment as { experiment_id: string }).experiment_id);
    const found = await this.call('GET', byName, undefined);
    if (found.json.error_code !== 'RESOURCE_DOES_NOT_EXIST') return idOf(this.check('GET', byName, found));
    const created = await this.call('POST', '/api/2.0/mlflow/experiments/create', { name });
    // Another export may have created it meanwhile.
    if (created.json.error_code === 'RESOURCE_ALREADY_EXISTS') return idOf(await this.ok('GET', byName));
    return String(this.check('POST', '/api/2.0/mlflow/experiments/create', created).experiment_id);
  }

  /** Where the server serves this artifact URI over HTTP; undefined when it does not proxy artifacts. */
  artifactRoute(artifactUri: string, name: string): string | undefined {
    const m = /^mlflow-artifacts:(?:\/\/[^/]*)?\/*(.*)$/.exec(artifactUri);
    if (!m) return undefined;
    const dir = m[1]!.split('/').filter(Boolean).map(encodeURIComponent).join('/');
    return `/api/2.0/mlflow-artifacts/artifacts/${dir}/${encodeURIComponent(name)}`;
  }

  runPage(experimentId: string, runId: string): string {
    return `${this.base}/#/experiments/${experimentId}/runs/${runId}`;
  }
}

export function mlflowExporter(config: MlflowConfig): Exporter {
  return {
    name: 'mlflow',
    async export(input: ExportInput): Promise<ExportResult> {
      let token: string | undefined;
      if (config.token_env) {
        token = process.env[config.token_env];
        if (!token) throw new GymError('SETUP_FAILED', `exporters.mlflow.token_env names ${config.token_env}, which is not set in the worker's environment`);
      }
      const client = new MlflowClient(config.tracking_uri, token, input.signal);
      const experimentId = await client.experimentId(config.experiment);
      const created = await client.ok('POST', '/api/2.0/mlflow/runs/create', {
        experiment_id: experimentId,
        run_name: config.run_name ?? input.manifest.run_id,
        start_time: Date.parse(input.manifest.created_at) || Date.now(),
        tags: [
          { key: 'gymflow.run_id', value: input.manifest.run_id },
          { key: 'gymflow.identity', value: input.manifest.identity },
          { key: 'gymflow.run_dir', value: input.runDir },
        ],
      });
      const info = (created.run as { info: { run_id: string; artifact_uri: string } }).info;
      const runId = info.run_id;
      const uploaded: string[] = [];
      try {
        const params = Object.entries(input.params).map(([key, value]) => ({ key: mlflowKey(key), value: value.slice(0, MAX_PARAM_VALUE_LENGTH) }));
        for (const batch of chunks(params, MAX_PARAMS_PER_BATCH)) await client.ok('POST', '/api/2.0/mlflow/runs/log-batch', { run_id: runId, params: batch });
        const timestamp = Date.now();
        const metrics = Object.entries(input.metrics).map(([key, value]) => ({ key: mlflowKey(key), value, timestamp, step: 0 }));
        for (const batch of chunks(metrics, MAX_METRICS_PER_BATCH)) await client.ok('POST', '/api/2.0/mlflow/runs/log-batch', { run_id: runId, metrics: batch });
        for (const file of input.files) {
          const route = client.artifactRoute(info.artifact_uri, file.name);
          if (!route) {
            throw new GymError(
              'SETUP_FAILED',
              `params and metrics were logged to MLflow run ${runId}, but the server does not serve its artifacts (artifact URI ${info.artifact_uri}): start it with --serve-artifacts (the default) and an --artifacts-destination`,
            );
          }
          const { size } = await stat(file.path);
          const upload: Upload = { stream: createReadStream(file.path), size };
          await client.ok('PUT', route, upload, UPLOAD_TIMEOUT_MS);
          uploaded.push(file.name);
        }
        await client.ok('POST', '/api/2.0/mlflow/runs/update', { run_id: runId, status: 'FINISHED', end_time: Date.now() });
      } catch (e) {
        // Mark the half-exported run so it is not mistaken for a complete one; the first error is the one to report.
        await client.ok('POST', '/api/2.0/mlflow/runs/update', { run_id: runId, status: 'FAILED', end_time: Date.now() }).catch(() => undefined);
        throw e;
      }
      return { target: client.runPage(experimentId, runId), run_id: runId, uploaded };
    },
  };
}
