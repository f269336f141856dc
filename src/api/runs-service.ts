// What each route of the trigger API does, without HTTP: start a run once per request id, show, list and
// steer runs, all through the same client code as the CLI (src/runs).
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { GymError, isGymError, isRetryableCode } from '../errors';
import { checkRunFolder, prepareRun, runStatus, startRun, validateRunInput } from '../runs/client';
import { steerRun } from '../runs/control';
import { listRuns, parseRunStatus } from '../runs/list';
import { describeRun } from '../runs/status';
import { runWorkflowId } from '../../workflows/definitions';
import { errorResponse, fieldError } from './errors';
import { bodySha256, type LedgerEntry, type RequestLedger } from './request-ledger';
import { inRequestTerms, runFromRequest, type ApiPolicy, type PlannedRun } from './run-request';
import { writeMaterialized } from '../cli/commands/eval-run';
import { QuietGate, RunStarter } from './run-starter';
import { LIVE_STATUSES, ListQuery, RunRequest, type RunCreated, type RunList, type RunView, type SteerAnswer } from './schemas';
import { ViewCache } from './view-cache';

const ENDED_VIEW_MS = 5000;
/** Past this age, a reading whose refresh failed is not served: the poll waits for a lookup of its own. */
const MAX_STALE_MS = 10_000;
/** Workflow starts under way at once: more only queue inside Temporal's frontend. */
const START_CONCURRENCY = 8;
/** Runs whose start failed for good, remembered for their pollers. */
const MAX_FAILED_STARTS = 1000;
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

export class RunsService {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly views: ViewCache<RunView>;
  private readonly ledger: RequestLedger;
  private readonly starter: RunStarter;
  /** Starts wait while submissions are being answered (at most this long): a burst is answered first. */
  private readonly submitting = new QuietGate(1000);
  /** The ledger entries of runs accepted and not yet started, by run id. */
  private readonly accepted = new Map<string, LedgerEntry>();
  private readonly failedStarts = new Map<string, RunView>();

  constructor(
    private readonly opts: {
      client: () => Client;
      policy: ApiPolicy;
      /** Where request ids are recorded (opened by the caller, who closes it after this service). */
      ledger: RequestLedger;
      logger: Logger;
      /** How long one status lookup answers every poll of that run: pollers share it instead of each querying the workflow. */
      statusCacheMs: number;
    },
  ) {
    this.ledger = opts.ledger;
    this.views = new ViewCache<RunView>({
      freshMs: opts.statusCacheMs,
      endedFreshMs: Math.max(opts.statusCacheMs, ENDED_VIEW_MS),
      maxStaleMs: Math.max(opts.statusCacheMs, MAX_STALE_MS),
      isEnded: (v) => !LIVE_STATUSES.includes(v.status),
      isGone: (e) => e instanceof GymError && e.code === 'NOT_FOUND',
      onRefreshError: (runId, e) => opts.logger.warn({ run_id: runId, err: e }, 'could not refresh the run status; polls are answered with the last reading until it is too old'),
    });
    this.starter = new RunStarter({
      concurrency: START_CONCURRENCY,
      isPermanent: (e) => isGymError(e) && !isRetryableCode(e.code),
      describe: (e) => {
        const { code, message } = errorResponse(e).body.error;
        return { code, message };
      },
      onRetry: (runId, e, inMs) => opts.logger.warn({ run_id: runId, err: e, retry_in_ms: inMs }, 'could not start the run yet; trying again'),
      whenQuiet: () => this.submitting.whenQuiet(),
    });
  }

  /** Starts the runs of requests recorded but not known to have started (the API stopped in between). */
  recover(): number {
    const entries = this.ledger.unstarted();
    for (const entry of entries) this.accept(entry);
    return entries.length;
  }

  close(): void {
    this.starter.close();
  }

  async submit(body: unknown, headerKey: string | undefined): Promise<RunCreated> {
    const req = parseOrRefuse(RunRequest, body, 'request body');
    if (headerKey !== undefined && req.request_id !== undefined && headerKey !== req.request_id) {
      throw fieldError('BAD_INPUT', 'the Idempotency-Key header and request_id differ; send one of them, or the same id in both', 'request_id');
    }
    const key = headerKey ?? req.request_id;
    if (key === undefined) return this.startOrFind(await this.plan(req, undefined));
    return this.submitting.during(() => this.serialized(key, () => this.submitOnce(req, key)));
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

  /**
   * A new request id is answered once the request is recorded in the ledger, its dataset checked and its
   * folder found free: its workflow is started in the background (the run shows as `starting` until then).
   */
  private async submitOnce(req: RunRequest, key: string): Promise<RunCreated> {
    const bodySha = bodySha256(req);
    const known = this.ledger.read(key);
    if (known) return this.again(known, bodySha);
    const planned = await this.plan(req, key);
    const { config } = planned;
    // A folder found missing holds no run to conflict with.
    if (!planned.folderMissing) await checkRunFolder(config, planned.datasetHash);
    const entry = { request_id: key, body_sha256: bodySha, request: req, run_id: config.runId, workflow_id: runWorkflowId(config.runId), run_dir: config.runDir, created_at: new Date().toISOString() };
    // Resolves once the entry is on disk (group-committed with the other claims of the moment): then it is answered.
    const { claimed, entry: held } = await this.ledger.claim(entry);
    if (!claimed) return this.again(held, bodySha);
    this.accept(entry, planned);
    return { run_id: config.runId, workflow_id: entry.workflow_id, run_dir: config.runDir, created: true, request_id: key };
  }

  /** Queues the start of a recorded request's run; one that cannot start is forgotten by the ledger, so the id may be sent again. */
  private accept(entry: LedgerEntry, planned?: Planned): void {
    const { run_id: runId } = entry;
    this.failedStarts.delete(runId);
    this.accepted.set(runId, entry);
    this.views.delete(runId);
    this.starter.enqueue(
      runId,
      async () => {
        planned ??= await this.plan(entry.request, entry.request_id);
        await this.startOrFind(planned);
        // The run has started whatever the ledger can record: without its line, the next API start finds the
        // workflow and records it then.
        await this.ledger.markStarted(entry).catch((e: unknown) => this.opts.logger.error({ err: e, request_id: entry.request_id }, 'could not record that the run started'));
        this.accepted.delete(runId);
      },
      (e) => {
        this.accepted.delete(runId);
        const { code, message } = errorResponse(e).body.error;
        this.opts.logger.error({ run_id: runId, request_id: entry.request_id, code, message }, 'the run cannot start; its request id is released');
        const now = new Date().toISOString();
        this.failedStarts.set(runId, { ...this.entryView(entry), status: 'failed', start_error: { code, message }, observed_at: now });
        if (this.failedStarts.size > MAX_FAILED_STARTS) this.failedStarts.delete(this.failedStarts.keys().next().value!);
        this.views.delete(runId);
        this.ledger.release(entry.request_id).catch((err: unknown) => this.opts.logger.error({ err, request_id: entry.request_id }, 'could not release the request id'));
      },
    );
  }

  private entryView(entry: LedgerEntry): RunView {
    return { run_id: entry.run_id, workflow_id: entry.workflow_id, status: 'starting', started: entry.created_at, run_dir: entry.run_dir, observed_at: new Date().toISOString() };
  }

  /** A request id seen before: its run, started now if the API stopped before it could start it. */
  private async again(entry: LedgerEntry, bodySha: string): Promise<RunCreated> {
    if (entry.body_sha256 !== bodySha) {
      throw fieldError('CONFLICT', `request id ${JSON.stringify(entry.request_id)} already started run ${entry.run_id} with a different body; send a new request id for a different run`, 'request_id');
    }
    let created = false;
    if (entry.started_at === undefined && !this.accepted.has(entry.run_id)) {
      created = (await this.startOrFind(await this.plan(entry.request, entry.request_id))).created;
      await this.ledger.markStarted(entry);
    }
    return { run_id: entry.run_id, workflow_id: entry.workflow_id, run_dir: entry.run_dir, created, request_id: entry.request_id };
  }

  /** Starts the run unless Temporal already knows its workflow (running or ended); a folder holding another run is refused. */
  private async startOrFind({ config, datasetHash, materialized }: Planned): Promise<RunCreated> {
    const { manifest } = await prepareRun(config, datasetHash);
    if (materialized) await writeMaterialized(config.inputFile, materialized);
    const client = this.opts.client();
    const created = (await runStatus(client, manifest.workflow_id)) === undefined;
    if (created) {
      const at = new Date().toISOString();
      await startRun(client, manifest);
      this.views.set(config.runId, { run_id: config.runId, workflow_id: manifest.workflow_id, status: 'running', started: at, run_dir: config.runDir, observed_at: at });
    } else this.views.delete(config.runId);
    return { run_id: config.runId, workflow_id: manifest.workflow_id, run_dir: config.runDir, created };
  }

  private workflowIdOf(runId: string): string {
    if (!RUN_ID.test(runId)) throw new GymError('NOT_FOUND', `no run ${JSON.stringify(runId)}: a run id has letters, digits, ".", "_" and "-"`);
    return runWorkflowId(runId);
  }

  /**
   * The run's status as last read: polls are answered at once from the last reading, refreshed by one lookup at
   * a time once it is statusCacheMs old (ENDED_VIEW_MS for a run that has ended: it changes only if resumed).
   */
  view(runId: string): Promise<RunView> {
    const workflowId = this.workflowIdOf(runId);
    return this.views.get(runId, () => this.lookUp(runId, workflowId));
  }

  private async lookUp(runId: string, workflowId: string): Promise<RunView> {
    const accepted = this.accepted.get(runId);
    if (accepted) {
      const problem = this.starter.state(runId)?.lastError;
      return { ...this.entryView(accepted), ...(problem ? { start_error: problem } : {}) };
    }
    const failed = this.failedStarts.get(runId);
    if (failed) return failed;
    const observed = new Date().toISOString();
    const r = await describeRun(this.opts.client(), workflowId);
    return {
      run_id: runId,
      workflow_id: workflowId,
      status: r.runStatus,
      started: r.startTime.toISOString(),
      run_dir: r.runDir,
      progress: r.progress,
      metrics: r.metrics as Record<string, unknown> | undefined,
      observed_at: observed,
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
    if (this.accepted.has(runId)) throw new GymError('CONFLICT', `run ${runId} is still starting; send ${action} again once it shows as running`);
    const client = this.opts.client();
    if ((await runStatus(client, workflowId)) === undefined) throw new GymError('NOT_FOUND', `no run ${runId} (workflow ${workflowId}) on this Temporal server`);
    await steerRun(client, workflowId, { action: action === 'resume' ? 'unpause' : action });
    this.views.delete(runId);
    return { run_id: runId, workflow_id: workflowId, action, sent: true };
  }
}
