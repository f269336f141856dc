// The activities of one rollout's loop: seed the session, one model turn, one tool call. Each is
// idempotent by (rollout, step, index): a retry after a crash finds the finished file and reuses it,
// so no model call is paid for twice and no tool mutates state twice.
import { existsSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import type { Gateway } from '../src/gateway/server';
import type { ModelSpec } from '../src/gateway/spec';
import { getEnvironment } from '../src/environments/registry';
import type { AnyEnvironment } from '../src/environments/types';
import { functionCalls, inputItems, type ConversationItem, type FunctionCallOutputItem } from '../src/schemas/responses';
import { rolloutId, type RolloutKey } from '../src/schemas/task';
import { RunStore } from '../src/store/run-store';
import type { RolloutRef } from '../workflows/definitions';
import { BadTask, runActivity } from './envelope';
import { callModelThroughGateway } from './model-client';
import { runTool } from '../src/environments/tools';
import {
  callAt,
  envStepPath,
  historyItems,
  modelTurnPath,
  readTranscript,
  seedPath,
  toolPath,
  type EnvStepFile,
  type ModelTurnFile,
  type ToolFile,
} from './transcript';

export function idOf(ref: RolloutKey): string {
  return rolloutId(ref);
}

export async function loadTask(store: RunStore, env: AnyEnvironment, taskIndex: number) {
  const row = await store.readTask(taskIndex);
  const parsed = env.taskSchema.safeParse(row);
  if (!parsed.success) throw new BadTask(`task ${taskIndex} does not fit environment ${env.name}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export function createRolloutStepActivities(deps: { gateway: Gateway }) {
  return {
    /** Seeds the session unless the rollout was already recorded (a resumed run skips it). */
    async startRollout(ref: RolloutRef): Promise<{ recordedReward: number | null }> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const recorded = await store.findRollout(id);
        if (recorded) return { recordedReward: recorded.reward };
        if (!existsSync(seedPath(store, id))) {
          const env = getEnvironment(ref.envName);
          const task = await loadTask(store, env, ref.taskIndex);
          await store.writeJson(seedPath(store, id), env.reset ? env.reset(task) : { state: await env.seedSession(task) });
        }
        return { recordedReward: null };
      });
    },

    async callModel(ref: RolloutRef & { step: number; model: ModelSpec }) {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const file = modelTurnPath(store, id, ref.step);
        let turn = await store.readJson<ModelTurnFile>(file);
        if (!turn) {
          const env = getEnvironment(ref.envName);
          const task = await loadTask(store, env, ref.taskIndex);
          const history = historyItems(await readTranscript(store, id, ref.step));
          const params = task.responses_create_params;
          const input: ConversationItem[] = [...inputItems(params.input), ...history];
          const call = await callModelThroughGateway(deps.gateway, ref.model, { ...params, input }, id, Context.current().cancellationSignal);
          await store.writeJson(store.modelCallPath(id, call.callId), {
            call_id: call.callId,
            rollout_id: id,
            step: ref.step,
            attempt: Context.current().info.attempt,
            backend: call.backend,
            latency_ms: Math.round(call.latencyMs * 10) / 10,
            request: { ...params, input_items: input.length, input: undefined },
            response: call.response,
          });
          turn = {
            callId: call.callId,
            responseId: call.response.id,
            model: call.response.model ?? null,
            output: call.response.output,
            usage: call.response.usage ?? null,
            incomplete: !!call.response.incomplete_details,
          };
          await store.writeJson(file, turn);
        }
        return {
          callId: turn.callId,
          functionCalls: functionCalls(turn.output).length,
          hasAssistantMessage: turn.output.some((i) => i.type !== 'function_call' && i.type !== 'function_call_output' && i.type !== 'reasoning' && i.role === 'assistant'),
          incomplete: turn.incomplete,
        };
      });
    },

    /** A turn-based environment's reply to model turn `step`; idempotent like a tool call. */
    async stepEnvironment(ref: RolloutRef & { step: number }): Promise<{ done: boolean }> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const file = envStepPath(store, id, ref.step);
        const done = await store.readJson<EnvStepFile>(file);
        if (done) return { done: done.done };
        const env = getEnvironment(ref.envName);
        if (!env.step) throw new BadTask(`environment ${env.name} is not turn-based`);
        const task = await loadTask(store, env, ref.taskIndex);
        const transcript = await readTranscript(store, id, ref.step + 1);
        const turn = transcript.turns.find((t) => t.step === ref.step);
        if (!turn) throw new Error(`rollout ${id} has no model turn ${ref.step}`);
        const reply = env.step(task, transcript.state, turn.model.output);
        await store.writeJson(file, { items: reply.items, state: reply.state, done: reply.done } satisfies EnvStepFile);
        return { done: reply.done };
      });
    },

    async callTool(ref: RolloutRef & { step: number; index: number }): Promise<{ status: number }> {
      return runActivity(async () => {
        const store = new RunStore(ref.runDir);
        const id = idOf(ref);
        const file = toolPath(store, id, ref.step, ref.index);
        const done = await store.readJson<ToolFile>(file);
        if (done) return { status: done.status };
        const env = getEnvironment(ref.envName);
        const task = await loadTask(store, env, ref.taskIndex);
        const transcript = await readTranscript(store, id);
        const turn = transcript.turns.find((t) => t.step === ref.step);
        if (!turn) throw new Error(`rollout ${id} has no model turn ${ref.step}`);
        const call = callAt(turn.model, ref.index);
        const result = await runTool(env, task, transcript.state, call.name, call.arguments);
        const item: FunctionCallOutputItem = { type: 'function_call_output', call_id: call.call_id, output: result.output };
        await store.writeJson(file, { item, status: result.status, state: result.state } satisfies ToolFile);
        return { status: result.status };
      });
    },
  };
}
