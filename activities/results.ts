// The end of a rollout and of a run: verify the episode, write its record exactly once, route a
// failed rollout to the sidecar, and aggregate the run's metrics from its files.
import { Context } from '@temporalio/activity';
import type { Gateway } from '../src/gateway/server';
import type { ModelSpec } from '../src/gateway/spec';
import { getEnvironment } from '../src/environments/registry';
import type { JudgeCall } from '../src/environments/types';
import { computeRunMetrics, type RunMetrics } from '../src/metrics/aggregate';
import type { FailureRecord, RolloutRecord } from '../src/schemas/records';
import type { ResponseObject } from '../src/schemas/responses';
import type { VerifyResult } from '../src/schemas/verify';
import { RunStore } from '../src/store/run-store';
import type { RolloutRef } from '../workflows/definitions';
import type { FailureDescription } from '../workflows/failure';
import { runActivity } from './envelope';
import { callModelThroughGateway } from './model-client';
import { idOf, loadTask } from './rollout-steps';
import { readTranscript, historyItems, totalUsage, verifyPath, type Transcript } from './transcript';

interface VerifyFile {
  response: ResponseObject;
  result: VerifyResult;
  modelCallIds: string[];
}

/** The whole episode as one Responses object: the last turn's envelope with every item generated. */
function episodeResponse(transcript: Transcript): ResponseObject {
  const last = transcript.turns.at(-1)?.model;
  return {
    id: last?.responseId ?? 'resp_none',
    object: 'response',
    model: last?.model ?? null,
    status: last?.incomplete ? 'incomplete' : 'completed',
    output: historyItems(transcript),
    usage: totalUsage(transcript),
  };
}

export function createResultActivities(deps: { gateway: Gateway }) {
  return {
    async verifyRollout(ref: RolloutRef & { judgeModel?: ModelSpec }): Promise<{ reward: number }> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const done = await store.readJson<VerifyFile>(verifyPath(store, id));
        if (done) return { reward: done.result.reward };
        const env = getEnvironment(ref.envName);
        const task = await loadTask(store, env, ref.taskIndex);
        const transcript = await readTranscript(store, id);
        const response = episodeResponse(transcript);
        const judge: JudgeCall | undefined = ref.judgeModel
          ? async (params) => (await callModelThroughGateway(deps.gateway, ref.judgeModel!, params, `${id}-judge`, Context.current().cancellationSignal)).response
          : undefined;
        const result = await env.verify(task, response, { state: transcript.state, judge });
        const modelCallIds = transcript.turns.map((t) => t.model.callId);
        await store.writeJson(verifyPath(store, id), { response, result, modelCallIds } satisfies VerifyFile);
        return { reward: result.reward };
      });
    },

    async recordRollout(ref: RolloutRef): Promise<{ reward: number }> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const verified = await store.readJson<VerifyFile>(verifyPath(store, id));
        if (!verified) throw new Error(`rollout ${id} has no verify result to record`);
        const task = await store.readTask(ref.taskIndex);
        const record: RolloutRecord = {
          ...task,
          responses_create_params: task.responses_create_params,
          ...verified.result,
          response: verified.response,
          _ng_task_index: typeof task._ng_task_index === 'number' ? task._ng_task_index : ref.taskIndex,
          _ng_rollout_index: ref.rolloutIndex,
          _ng_rollout_id: id,
          _gf_model_call_ids: verified.modelCallIds,
        };
        await store.appendRollout(record);
        return { reward: verified.result.reward };
      });
    },

    async recordFailure(ref: RolloutRef & FailureDescription): Promise<void> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const record: FailureRecord = {
          _ng_task_index: ref.taskIndex,
          _ng_rollout_index: ref.rolloutIndex,
          _ng_rollout_id: idOf(ref),
          _ng_failure_class: ref.failureClass as FailureRecord['_ng_failure_class'],
          message: ref.message,
          stage: ref.stage,
          attempt: ref.attempt,
          failed_at: new Date().toISOString(),
        };
        await store.appendFailure(record);
      });
    },

    async finalizeRun(input: { runDir: string; expected: number }): Promise<RunMetrics> {
      return runActivity(async () => {
        const store = new RunStore(input.runDir);
        const { rollouts, failures } = await store.compactResults();
        const metrics = computeRunMetrics({
          expected: input.expected,
          rollouts: rollouts.map((r) => ({ taskIndex: r._ng_task_index, rolloutIndex: r._ng_rollout_index, reward: r.reward, rewardComponents: r.reward_components })),
          failureClasses: failures.map((f) => f._ng_failure_class),
        });
        await store.writeJson(store.metricsPath, metrics);
        return metrics;
      });
    },
  };
}
