// The steps of one rollout, written once for both durability grains: `takeTurn` (seed the session on
// the first turn, one model call, then the tool calls or environment step it leads to) and
// `finishRollout` (verify, record exactly once). Every call is journaled before the next starts, so a
// retry continues at the last finished call: no model call paid twice, no tool mutating state twice.
import { Context } from '@temporalio/activity';
import { compactHistory, type HistoryPolicy } from '../src/agents/history-policy';
import { nextMove, type ModelTurnShape } from '../src/agents/loop';
import type { EnvRef, HarnessRef } from '../src/environments/ref';
import { resolveEnvironment } from '../src/environments/registry';
import { runTool } from '../src/environments/tools';
import { rowEnvRef } from '../src/routing/row';
import type { AgentKind, AnyEnvironment, JudgeCall, TurnContext } from '../src/environments/types';
import { GymError } from '../src/errors';
import { rolloutDiagnostics } from '../src/metrics/diagnostics';
import { metered } from '../src/sandboxes/meter';
import type { Gateway } from '../src/gateway/server';
import type { ModelSpec } from '../src/gateway/spec';
import { recordAgentRef, VERIFY_DEFAULTS, type FailureRecord, type RolloutCompaction, type RolloutRecord } from '../src/schemas/records';
import { functionCalls, inputItems, type ConversationItem, type FunctionCallOutputItem, type ResponseObject } from '../src/schemas/responses';
import { rolloutId } from '../src/schemas/task';
import { episodeOf, historyItems, historyTurns, totalUsage, type Episode, type Journal, type ModelTurn } from '../src/store/journal';
import { runFiles, type RunFiles } from '../src/store/run-files';
import { inSpan } from '../src/tracing/spans';
import type { FailureDescription } from './step-retry';
import { FINISHING } from '../workflows/agent-loop';
import { inStage } from './envelope';
import { loggedJudge, modelResponse, requestModel } from './model-client';
import { withRolloutTraces } from './rollout-traces';

/** What every step of a run's rollouts needs; small, because it travels in each activity's input. */
export interface RolloutSpec {
  runDir: string;
  /** The run's object store (`s3://bucket/prefix/<run id>`) when its files are there instead of in `runDir`. */
  store?: string;
  /** Which incarnation of the run folder this is (the run workflow's first run id): a folder deleted and
   *  used again by a new run must never see work a long-lived worker kept for the old one. */
  epoch: string;
  env: EnvRef;
  agent: AgentKind;
  model: ModelSpec;
  judgeModel?: ModelSpec;
  maxSteps?: number;
  /** What of its history the model is shown on each call (src/agents/history-policy.ts); absent: all of it. */
  historyPolicy?: HistoryPolicy;
}

export interface RolloutKey {
  taskIndex: number;
  rolloutIndex: number;
  /** Set when a retry plays the rollout again: its NeMo Gym attempt index (earlier attempts in the sidecar). */
  attemptIndex?: number;
}

/** A rollout that reached its record. */
export type RolloutOutcome = { status: 'recorded'; reward: number };

export interface TurnResult {
  /** No further model turn: verify next (or, with `outcome`, the rollout was recorded before). */
  done: boolean;
  toolCalls: number;
  outcome?: RolloutOutcome;
}

/** Who plays a rollout, as its record names them. */
export interface PlayedBy {
  environment: string;
  agent: string;
  taskIndex: number;
  rolloutIndex: number;
}

/** Task rows of the runs this process works on, raw and validated; a run's tasks.jsonl never changes. */
interface LoadedTask {
  raw: Record<string, unknown>;
  parsed: any;
  /** The reference it is played against: its stamped one (a routed row), else the run's. */
  ref: EnvRef;
  env: AnyEnvironment;
  agent: AgentKind;
}
const taskCache = new Map<string, Map<number, LoadedTask>>();
const TASK_CACHE_RUNS = 8;
const TASK_CACHE_ROWS = 20_000;

/**
 * A task row, raw and validated, with the environment and agent that play it: the run's, or those a
 * routed row names (a run over several environments); cached per run incarnation.
 */
async function loadTask(spec: RolloutSpec, store: RunFiles, taskIndex: number): Promise<LoadedTask> {
  const runKey = `${spec.store ?? spec.runDir}|${spec.epoch}`;
  let rows = taskCache.get(runKey);
  if (!rows) {
    if (taskCache.size >= TASK_CACHE_RUNS) taskCache.delete(taskCache.keys().next().value!);
    rows = new Map();
    taskCache.set(runKey, rows);
  }
  const hit = rows.get(taskIndex);
  if (hit) return hit;
  const raw = await store.readTask(taskIndex);
  const routed = rowEnvRef(raw);
  const ref = routed ?? spec.env;
  const env = resolveEnvironment(ref);
  const parsed = env.taskSchema.safeParse(raw);
  if (!parsed.success) throw new GymError('BAD_TASK', `task ${taskIndex} does not fit environment ${env.name}: ${parsed.error.issues[0]?.message}`);
  if (rows.size >= TASK_CACHE_ROWS) rows.clear();
  const row = { raw, parsed: parsed.data, ref, env, agent: routed ? (env.agent ?? 'simple_agent') : spec.agent };
  rows.set(taskIndex, row);
  return row;
}

function shapeOf(turn: ModelTurn): ModelTurnShape {
  return {
    functionCalls: functionCalls(turn.output).length,
    hasAssistantMessage: turn.output.some((i) => i.type !== 'function_call' && i.type !== 'function_call_output' && i.type !== 'reasoning' && i.role === 'assistant'),
    incomplete: turn.incomplete,
  };
}

/** The whole episode as one Responses object: the last turn's envelope with every item generated. */
function episodeResponse(episode: Episode): ResponseObject {
  const last = episode.turns.at(-1)?.model;
  return {
    id: last?.responseId ?? 'resp_none',
    object: 'response',
    model: last?.model ?? null,
    status: last?.incomplete ? 'incomplete' : 'completed',
    output: historyItems(episode),
    usage: totalUsage(episode),
  };
}

/** The record's account of the history policy: every call of the episode that was not shown the whole history. */
function compactionOf(policy: HistoryPolicy, episode: Episode): RolloutCompaction {
  return { policy, compacted_calls: episode.turns.flatMap((t) => (t.model.compaction ? [{ call_id: t.model.callId, step: t.step, ...t.model.compaction }] : [])) };
}

function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * When the shard scheduled the activity this step runs in (a round, or a batch; its first attempt),
 * or undefined outside an activity. A rollout's first step starts in the activity that first carries it.
 */
function scheduledAtMs(): number | undefined {
  try {
    return Context.current().info.scheduledTimestampMs;
  } catch {
    return undefined;
  }
}

/** Journals a try that failed, then rethrows its error: an error writing that entry must not hide it. */
async function failedTry(journal: Journal, step: number, error: unknown): Promise<never> {
  try {
    await journal.append({ kind: 'failed_try', step });
  } catch {
    // The step's own error is the one that decides what happens next; it is thrown below either way.
  }
  throw error;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function cancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

export function createRolloutSteps(deps: { gateway: Gateway }) {
  /** A turn-based environment's own model calls go to the run's judge model, logged like the judge's under the rollout. */
  function turnContext(spec: RolloutSpec, key: RolloutKey): TurnContext {
    const judgeModel = spec.judgeModel;
    if (!judgeModel) return {};
    return { model: loggedJudge(deps.gateway, judgeModel, { runDir: spec.runDir, store: spec.store, rolloutId: rolloutId(key), attempt: currentAttempt() }, cancellation) };
  }

  async function callModel(spec: RolloutSpec, key: RolloutKey, step: number, task: any, episode: Episode, journal: Journal): Promise<ModelTurn> {
    const id = rolloutId(key);
    const params = task.responses_create_params;
    const { seed, turns } = historyTurns(episode, step);
    const initial: ConversationItem[] = [...inputItems(params.input), ...seed];
    const { items: input, compaction } = spec.historyPolicy ? compactHistory({ initial, turns }, spec.historyPolicy) : { items: [...initial, ...turns.flat()], compaction: null };
    const reply = await requestModel(deps.gateway, spec.model, { ...params, input }, id, cancellation(), { runDir: spec.runDir, task });
    const logged = {
      call_id: reply.callId,
      rollout_id: id,
      step,
      attempt: currentAttempt(),
      backend: reply.backend,
      model: reply.model,
      started_at: reply.startedAt,
      latency_ms: Math.round(reply.latencyMs * 10) / 10,
      status: reply.status,
      request: { ...params, input_items: input.length, input: undefined },
      ...(compaction ? { compaction } : {}),
      ...(reply.routing ? { routing: reply.routing } : {}),
    };
    let response: ResponseObject;
    try {
      response = modelResponse(spec.model, reply);
    } catch (e) {
      // A failed call is logged too: the health checks tell a rollout that ended on one from one that recovered.
      await runFiles(spec)
        .callLog()
        .append({ ...logged, error: { code: (e as GymError).code, message: (e as Error).message } });
      throw e;
    }
    const turn: ModelTurn = {
      callId: reply.callId,
      responseId: response.id,
      model: response.model ?? null,
      output: response.output,
      usage: response.usage ?? null,
      incomplete: !!response.incomplete_details,
      latencyMs: Math.round(reply.latencyMs * 10) / 10,
      ...(compaction ? { compaction } : {}),
    };
    // The journal first: once it holds the turn, no retry pays for this call again.
    await journal.append({ kind: 'model', step, turn });
    await runFiles(spec)
      .callLog()
      .append({ ...logged, response });
    return turn;
  }

  const steps = {
    /** One agent turn; on the first, settles an already-recorded rollout or seeds the session. */
    async takeTurn(spec: RolloutSpec, key: RolloutKey, step: number, journal: Journal): Promise<TurnResult> {
      return playTurn(spec, key, step, journal).catch((e) => failedTry(journal, step, e));
    },

    /**
     * Who plays the rollout, as its record will say: its row's environment and agent_ref, and the row's own task
     * and repeat (a line of one repeat). A row that cannot be loaded (a bad task) is the run's.
     */
    async playedBy(spec: RolloutSpec, key: RolloutKey): Promise<PlayedBy> {
      const task = await loadTask(spec, runFiles(spec), key.taskIndex).catch(() => undefined);
      if (!task) return { environment: spec.env.name, agent: recordAgentRef({}, spec.env.name, spec.agent).name, taskIndex: key.taskIndex, rolloutIndex: key.rolloutIndex };
      const { raw, env, agent } = task;
      return {
        environment: env.name,
        agent: recordAgentRef(raw, env.name, agent).name,
        taskIndex: typeof raw._ng_task_index === 'number' ? raw._ng_task_index : key.taskIndex,
        rolloutIndex: typeof raw._ng_rollout_index === 'number' ? raw._ng_rollout_index : key.rolloutIndex,
      };
    },

    /** The harness that plays the rollout's row (its own way of playing, in a run that mixes them), if one does. */
    async harnessOf(spec: RolloutSpec, key: RolloutKey): Promise<HarnessRef | undefined> {
      return (await loadTask(spec, runFiles(spec), key.taskIndex)).ref.harness;
    },

    /** Verify (unless done before) and write the record once; the journal is dropped after. */
    async finishRollout(spec: RolloutSpec, key: RolloutKey, journal: Journal): Promise<{ reward: number }> {
      return finish(spec, key, journal).catch((e) => failedTry(journal, FINISHING, e));
    },

    async recordFailure(spec: RolloutSpec, key: RolloutKey, failure: FailureDescription): Promise<void> {
      const record: FailureRecord = {
        _ng_task_index: key.taskIndex,
        _ng_rollout_index: key.rolloutIndex,
        _ng_failure_class: failure.failureClass,
        message: failure.message,
        stage: failure.stage,
        attempt: failure.attempt,
        failed_at: new Date().toISOString(),
        _ng_failure_terminal: failure.terminal,
        _ng_attempt_index: key.attemptIndex ?? 0,
        _ng_rollout_id: rolloutId(key),
      };
      // A retry's line replaces the earlier attempt's (the results log keeps the higher attempt index).
      await runFiles(spec).appendFailure(record);
    },
  };

  async function playTurn(spec: RolloutSpec, key: RolloutKey, step: number, journal: Journal): Promise<TurnResult> {
    const startedAtMs = Date.now();
    const store = runFiles(spec);
    // A harness cannot be resumed between its model calls: it plays whole rollouts, in batches.
    const { ref } = await inStage('seed', () => loadTask(spec, store, key.taskIndex));
    if (ref.harness) throw new GymError('BAD_INPUT', `agent ${ref.harness.name} is an external harness: it runs only in the rollout grain (--durability rollout)`);
    const entries = await journal.read();
    let episode = episodeOf(entries);
    const earlierAttempt = episode.seed?.attemptIndex ?? 0;
    if (entries.length && (key.attemptIndex ?? 0) > earlierAttempt) {
      // A retry is a new attempt: the failed one's journal is kept aside, not continued.
      await journal.setAside(earlierAttempt);
      episode = episodeOf([]);
    }
    if (!episode.seed) {
      // Recorded already (a resumed run, or a stalled worker's duplicate): settled without running again.
      // A sidecar rollout is played again by a resumed run; its record then replaces the sidecar line.
      const recorded = await store.findRollout(rolloutId(key));
      if (recorded) return { done: true, toolCalls: 0, outcome: { status: 'recorded', reward: recorded.reward } };
      await inStage('seed', () =>
        inSpan('seed', {}, async () => {
          const { parsed: task, env } = await loadTask(spec, store, key.taskIndex);
          const seeded = env.reset ? await env.reset(task, turnContext(spec, key)) : { state: await env.seedSession(task) };
          const scheduledAt = scheduledAtMs();
          // Clocks of the server (or another host) and this worker may disagree by a little: never below 0.
          const queueingMs = scheduledAt === undefined ? 0 : Math.max(0, startedAtMs - scheduledAt);
          await journal.append({
            kind: 'seed',
            state: seeded.state,
            items: 'items' in seeded ? seeded.items : undefined,
            startedAtMs,
            queueingMs,
            ...(key.attemptIndex ? { attemptIndex: key.attemptIndex } : {}),
          });
        }),
      );
      episode = episodeOf(await journal.read());
    }
    const { parsed: task, env, agent } = await inStage('seed', () => loadTask(spec, store, key.taskIndex));
    let turn = episode.turns.find((t) => t.step === step)?.model;
    if (!turn) {
      await inStage('model', () => inSpan('model', { attributes: { 'gymflow.model.backend': spec.model.backend } }, () => callModel(spec, key, step, task, episode, journal)));
      // The first turn journaled for this step wins, should a stalled worker have written one too.
      episode = episodeOf(await journal.read());
      turn = episode.turns.find((t) => t.step === step)!.model;
    }
    const model = turn;
    const move = nextMove(agent, shapeOf(model), step, spec.maxSteps);
    if (move.kind === 'stop') return { done: true, toolCalls: 0 };
    if (move.kind === 'continue') return { done: false, toolCalls: 0 };
    const finished = episode.turns.find((t) => t.step === step);
    let state = episode.state;
    if (move.kind === 'environment') {
      if (finished?.env) return { done: finished.env.done || move.last, toolCalls: 0 };
      return inStage('tool', () =>
        inSpan('environment step', {}, async () => {
          if (!env.step) throw new GymError('BAD_TASK', `environment ${env.name} is not turn-based`);
          const started = performance.now();
          const reply = await env.step(task, state, model.output, turnContext(spec, key));
          const latencyMs = performance.now() - started;
          await journal.append({ kind: 'env', step, items: reply.items, state: reply.state, done: reply.done, latencyMs });
          return { done: reply.done || move.last, toolCalls: 0 };
        }),
      );
    }
    const calls = functionCalls(model.output);
    for (let index = finished?.tools.length ?? 0; index < calls.length; index++) {
      const call = calls[index]!;
      const { value: result, ms: latencyMs } = await timed(() =>
        inStage('tool', () => inSpan(`tool ${call.name}`, { attributes: { 'gymflow.tool.index': index } }, () => runTool(env, task, state, call.name, call.arguments))),
      );
      const item: FunctionCallOutputItem = { type: 'function_call_output', call_id: call.call_id, output: result.output };
      await journal.append({ kind: 'tool', step, index, item, status: result.status, state: result.state, latencyMs });
      state = result.state;
    }
    return { done: move.last, toolCalls: calls.length };
  }

  async function finish(spec: RolloutSpec, key: RolloutKey, journal: Journal): Promise<{ reward: number }> {
    const store = runFiles(spec);
    const id = rolloutId(key);
    const episode = episodeOf(await journal.read());
    if (!episode.seed) {
      // Recorded, and its journal (being) dropped, by a try that was killed before it answered: that record stands.
      const recorded = await store.findRollout(id);
      if (recorded) {
        await journal.remove();
        return { reward: recorded.reward };
      }
    }
    const { raw: row, parsed: task, env, agent } = await inStage('verify', () => loadTask(spec, store, key.taskIndex));
    // The attempt the journal was seeded for: a resumed run can finish a retry's attempt.
    const attemptIndex = episode.seed?.attemptIndex ?? key.attemptIndex;
    let verified = episode.verify;
    let recordedReward: number | undefined;
    if (!verified) {
      const response = episodeResponse(episode);
      const judgeModel = spec.judgeModel;
      const judge: JudgeCall | undefined = judgeModel
        ? loggedJudge(deps.gateway, judgeModel, { runDir: spec.runDir, store: spec.store, rolloutId: id, attempt: currentAttempt() }, cancellation)
        : undefined;
      const started = performance.now();
      const { value: result, sandboxMs } = await metered(() => inStage('verify', () => inSpan('verify', {}, async () => env.verify(task, response, { state: episode.state, judge }))));
      const latencyMs = performance.now() - started;
      verified = { kind: 'verify', response, result, modelCallIds: episode.turns.map((t) => t.model.callId), latencyMs, sandboxMs };
      await journal.append(verified);
    }
    await inStage('record', () =>
      inSpan('record', {}, async () => {
        const record: RolloutRecord = {
          ...row,
          responses_create_params: row.responses_create_params,
          ...VERIFY_DEFAULTS,
          ...verified.result,
          response: verified.response,
          agent_ref: recordAgentRef(row, env.name, agent),
          _ng_task_index: typeof row._ng_task_index === 'number' ? row._ng_task_index : key.taskIndex,
          // A row of its own per repeat (num_repeats by agent) says which repeat it is.
          _ng_rollout_index: typeof row._ng_rollout_index === 'number' ? row._ng_rollout_index : key.rolloutIndex,
          _gf_model_call_ids: verified.modelCallIds,
          _gf_diagnostics: rolloutDiagnostics({ ...episode, verify: verified }, Date.now()),
          ...(attemptIndex ? { _ng_attempt_index: attemptIndex } : {}),
          ...(spec.historyPolicy ? { _gf_compaction: compactionOf(spec.historyPolicy, episode) } : {}),
          _ng_rollout_id: id,
        };
        // Written first by another try (a stalled worker's): its record stands, and its reward is the rollout's.
        if (!(await store.appendRollout(record))) recordedReward = (await store.findRollout(id))?.reward;
      }),
    );
    await journal.remove();
    return { reward: recordedReward ?? verified.result.reward };
  }

  return withRolloutTraces(steps);
}

export type RolloutSteps = ReturnType<typeof createRolloutSteps>;
