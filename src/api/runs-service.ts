// What each route of the trigger API does, without HTTP: start a run once per request id, show, list and
// steer runs, all through the same client code as the CLI (src/runs).
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { GymError } from '../errors';
import { prepareRun, runStatus, startRun, validateRunInput } from '../runs/client';
import { steerRun } from '../runs/control';
import { listRuns, parseRunStatus } from '../runs/list';
import { describeRun } from '../runs/status';
import { runWorkflowId } from '../../workflows/definitions';
import { fieldError } from './errors';
import { bodySha256, RequestLedger, type LedgerEntry } from './request-ledger';
import { inRequestTerms, runFromRequest, type ApiPolicy, type PlannedRun } from './run-request';
import { writeMaterialized } from '../cli/commands/eval-run';
import { ListQuery, RunRequest, type RunCreated, type RunList, type RunView, type SteerAnswer } from './schemas';

const ENDED_VIEW_MS = 5000;
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The first problem zod found, as a GymError naming the field in the body's spelling. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = [...issue.path.map(String), ...keys.slice(0, 1)].join('.');
  const message = keys.length ? `unknown field "${field}" in the ${what}` : `${field || what}: ${issue.message}`;
  throw field ? fieldError('BAD_INPUT', message, field) : new GymError('BAD_INPUT', message);
}

type Planned = PlannedRun & { datasetHash: string };

interface CachedView {
  at: number;
  ended: boolean;
  view: Promise<RunView>;
}

export class RunsService {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly views = new Map<string, CachedView>();
  private readonly ledger: RequestLedger;

  constructor(
    private readonly opts: {
      client: () => Client;
      policy: ApiPolicy;
      /** Where request ids are recorded. */
      requestsDir: string;
      logger: Logger;
      /** How long one status lookup answers every poll of that run: pollers share it instead of each querying the workflow. */
      statusCacheMs: number;
    },
  ) {
    this.ledger = new RequestLedger(opts.requestsDir);
  }

  async submit(body: unknown, headerKey: string | undefined): Promise<RunCreated> {
    const req = parseOrRefuse(RunRequest, body, 'request body');
    if (headerKey !== undefined && req.request_id !== undefined && headerKey !== req.request_id) {
      throw fieldError('BAD_INPUT', 'the Idempotency-Key header and request_id differ; send one of them, or the same id in both', 'request_id');
    }
    const key = headerKey ?? req.request_id;
    if (key === undefined) return this.startOrFind(await this.plan(req, undefined));
    return this.serialized(key, () => this.submitOnce(req, key));
  }

  /** The run a request asks for, with its dataset's hash (a flag run's input is read and checked here). */
  private async plan(req: RunRequest, requestId: string | undefined): Promise<Planned> {
    const planned = await runFromRequest(req, requestId, this.opts.policy, (message) => this.opts.logger.warn({ request_id: requestId }, message));
    return { ...planned, datasetHash: planned.datasetHash ?? (await validateRunInput(planned.config)) };
  }

  /** Requests with one id are handled one after another in this process; the ledger orders them across processes. */
  private serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(fn);
    this.chains.set(key, next);
    void next.finally(() => this.chains.get(key) === next && this.chains.delete(key)).catch(() => undefined);
    return next;
  }

  private async submitOnce(req: RunRequest, key: string): Promise<RunCreated> {
    const bodySha = bodySha256(req);
    const known = await this.ledger.read(key);
    if (known) return this.again(known, bodySha);
    const planned = await this.plan(req, key);
    const { config } = planned;
    const entry = { request_id: key, body_sha256: bodySha, request: req, run_id: config.runId, workflow_id: runWorkflowId(config.runId), run_dir: config.runDir, created_at: new Date().toISOString() };
    const { claimed, entry: held } = await this.ledger.claim(entry);
    if (!claimed) return this.again(held, bodySha);
    try {
      return { ...(await this.startOrFind(planned)), request_id: key };
    } catch (e) {
      await this.ledger.release(key);
      throw e;
    }
  }

  /** A request id seen before: its run, started now if the API stopped before it could start it. */
  private async again(entry: LedgerEntry, bodySha: string): Promise<RunCreated> {
    if (entry.body_sha256 !== bodySha) {
      throw fieldError('CONFLICT', `request id ${JSON.stringify(entry.request_id)} already started run ${entry.run_id} with a different body; send a new request id for a different run`, 'request_id');
    }
    let created = false;
    if ((await runStatus(this.opts.client(), entry.workflow_id)) === undefined) {
      created = (await this.startOrFind(await this.plan(entry.request, entry.request_id))).created;
    }
    return { run_id: entry.run_id, workflow_id: entry.workflow_id, run_dir: entry.run_dir, created, request_id: entry.request_id };
  }

  /** Starts the run unless Temporal already knows its workflow (running or ended); a folder holding another run is refused. */
  private async startOrFind({ config, datasetHash, materialized }: Planned): Promise<RunCreated> {
    const { manifest } = await prepareRun(config, datasetHash);
    if (materialized) await writeMaterialized(config.inputFile, materialized);
    const client = this.opts.client();
    const created = (await runStatus(client, manifest.workflow_id)) === undefined;
    if (created) await startRun(client, manifest);
    this.views.delete(config.runId);
    return { run_id: config.runId, workflow_id: manifest.workflow_id, run_dir: config.runDir, created };
  }

  private workflowIdOf(runId: string): string {
    if (!RUN_ID.test(runId)) throw new GymError('NOT_FOUND', `no run ${JSON.stringify(runId)}: a run id has letters, digits, ".", "_" and "-"`);
    return runWorkflowId(runId);
  }

  /**
   * The run's status; polls within statusCacheMs of each other share one lookup, and those of a run that
   * has ended share one for ENDED_VIEW_MS: it changes only if `gym eval resume` starts it again.
   */
  view(runId: string): Promise<RunView> {
    const workflowId = this.workflowIdOf(runId);
    const now = Date.now();
    const cached = this.views.get(runId);
    if (cached && now - cached.at < Math.max(this.opts.statusCacheMs, cached.ended ? ENDED_VIEW_MS : 0)) return cached.view;
    const entry: CachedView = { at: now, ended: false, view: this.lookUp(runId, workflowId) };
    this.views.set(runId, entry);
    entry.view.then(
      (v) => (entry.ended = v.status !== 'running' && v.status !== 'paused'),
      () => this.views.get(runId) === entry && this.views.delete(runId),
    );
    if (this.views.size > 10_000) this.views.delete(this.views.keys().next().value!);
    return entry.view;
  }

  private async lookUp(runId: string, workflowId: string): Promise<RunView> {
    const r = await describeRun(this.opts.client(), workflowId);
    return {
      run_id: runId,
      workflow_id: workflowId,
      status: r.runStatus,
      started: r.startTime.toISOString(),
      run_dir: r.runDir,
      progress: r.progress,
      metrics: r.metrics as Record<string, unknown> | undefined,
    };
  }

  async list(query: Record<string, string>): Promise<RunList> {
    const q = parseOrRefuse(ListQuery, query, 'query');
    let status;
    try {
      status = q.status === undefined ? undefined : parseRunStatus(q.status);
    } catch (e) {
      throw e instanceof GymError ? inRequestTerms(e) : e;
    }
    return { runs: await listRuns(this.opts.client(), { env: q.env, agent: q.agent, model: q.model, status }, q.limit ?? 50) };
  }

  async steer(runId: string, action: SteerAnswer['action']): Promise<SteerAnswer> {
    const workflowId = this.workflowIdOf(runId);
    const client = this.opts.client();
    if ((await runStatus(client, workflowId)) === undefined) throw new GymError('NOT_FOUND', `no run ${runId} (workflow ${workflowId}) on this Temporal server`);
    await steerRun(client, workflowId, { action: action === 'resume' ? 'unpause' : action });
    this.views.delete(runId);
    return { run_id: runId, workflow_id: workflowId, action, sent: true };
  }
}
