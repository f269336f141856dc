// A rollout played by an external agent harness (the rollout grain's batch activity runs it): the
// attempt registered with the gateway, the harness run in its sandbox, its partial trace kept, and the
// record written once from the calls the gateway logged and the verdict: a sandboxed task's tests, or
// for a text task the environment's own verify on the episode's Response (with the run's judge).
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveEnvironment } from '../src/environments/registry';
import { GymError } from '../src/errors';
import { getHarness } from '../src/harnesses/registry';
import { harnessFailure, runHarnessRollout, type HarnessRun } from '../src/harnesses/run';
import { runStrandsRollout, withToolOutputs } from '../src/agents/strands/run';
import type { VerifyResult } from '../src/schemas/verify';
import { attemptCalls, trajectoryOf, trajectoryResponse } from '../src/harnesses/trajectory';
import { loggedJudge } from './model-client';
import type { Gateway } from '../src/gateway/server';
import type { SandboxProvider } from '../src/sandboxes/provider';
import { sandboxProvider } from '../src/sandboxes/registry';
import { recordAgentRef, VERIFY_DEFAULTS, type RolloutRecord } from '../src/schemas/records';
import { rowEnvRef } from '../src/routing/row';
import { readManifest } from '../src/runs/client';
import type { SandboxLabels } from '../src/sandboxes/schema';
import { rolloutId } from '../src/schemas/task';
import { RunStore } from '../src/store/run-store';
import { inStage, stageError } from './envelope';
import type { RolloutKey, RolloutSpec } from './rollout-steps';

/** Where each attempt's harness trace goes (kept for a timed-out or failed one too): `harness/<attempt id>.json`. */
export const HARNESS_DIR = 'harness';

/** The run's own id (its manifest's), which `gym sandbox list|gc --run <id>` finds the sandbox by. */
async function runIdOf(runDir: string): Promise<string> {
  const manifest = await readManifest(runDir);
  if (!manifest) throw new GymError('INTERNAL', `${runDir} has no manifest.json: a harness rollout runs only inside a started run`);
  return manifest.run_id;
}

async function keepTrace(runDir: string, attemptId: string, trace: Record<string, unknown>): Promise<void> {
  await mkdir(path.join(runDir, HARNESS_DIR), { recursive: true });
  await writeFile(path.join(runDir, HARNESS_DIR, `${attemptId}.json`), JSON.stringify(trace, null, 2) + '\n');
}

export function createHarnessRollout(deps: { gateway: Gateway }) {
  /** Every try of a rollout gets its own URL id, so each try's calls stay apart in the log. */
  const tries = new Map<string, number>();
  /**
   * One provider per name for the worker's life: a docker provider holds a connection pool to the
   * engine (at the worker's DOCKER_HOST), which one per rollout would leave open.
   */
  const providers = new Map<string, Promise<SandboxProvider>>();
  const providerOf = (name: string): Promise<SandboxProvider> => {
    let provider = providers.get(name);
    if (!provider) {
      provider = sandboxProvider(name);
      provider.catch(() => providers.delete(name));
      providers.set(name, provider);
    }
    return provider;
  };

  return async function playHarnessRollout(spec: RolloutSpec, key: RolloutKey, attempt: number, signal?: AbortSignal): Promise<{ reward: number }> {
    const store = new RunStore(spec.runDir);
    const id = rolloutId(key);
    const recorded = await store.findRollout(id);
    if (recorded) return { reward: recorded.reward };
    const row = await store.readTask(key.taskIndex);
    // The row's own way of playing: a run may route its rows to different harnesses (or to Gymflow's loop).
    const envRef = rowEnvRef(row) ?? spec.env;
    const ref = envRef.harness;
    if (!ref) throw new GymError('INTERNAL', `playHarnessRollout called for task ${key.taskIndex}, which no harness plays`);
    const env = resolveEnvironment(envRef);
    const parsed = env.taskSchema.safeParse(row);
    if (!parsed.success) throw new GymError('BAD_TASK', `task ${key.taskIndex} does not fit environment ${env.name}: ${parsed.error.issues[0]?.message}`);
    const harness = getHarness(ref.name);
    // Until its sandbox exists the rollout is being set up: a provider that cannot be had or a creation
    // that fails (no engine, a refused create) is the environment's failure (env_error), not a tool's.
    // An agent that plays the environment's tools runs on the worker's host and needs none.
    const provider = harness.playsEnvironmentTools ? undefined : await inStage('seed', () => providerOf(ref.sandbox));
    const labels: SandboxLabels = { run: await runIdOf(spec.runDir), rollout: id, attempt, user: os.userInfo().username };
    const tryIndex = (tries.get(`${spec.runDir}|${id}`) ?? 0) + 1;
    tries.set(`${spec.runDir}|${id}`, tryIndex);
    const model = deps.gateway.register(spec.model);
    const scope = deps.gateway.registerRollout({ id: `${id}.a${attempt}.t${tryIndex}`, rollout_id: id, attempt, run_dir: spec.runDir, model, max_model_calls: ref.max_model_calls, task: row });
    const started = performance.now();
    const judge = spec.judgeModel ? loggedJudge(deps.gateway, spec.judgeModel, { runDir: spec.runDir, rolloutId: id, attempt }) : undefined;
    if (harness.playsEnvironmentTools) {
      try {
        return await playWithTools();
      } finally {
        deps.gateway.unregisterRollout(scope.id);
      }
    }
    let run: HarnessRun | undefined;
    let provisioned = false;
    try {
      run = await runHarnessRollout({
        harness,
        provider: provider!,
        env,
        task: parsed.data,
        labels,
        ...(ref.sandbox_image !== undefined ? { image: ref.sandbox_image } : {}),
        baseUrl: scope.baseUrl,
        apiKey: deps.gateway.token,
        model,
        timeoutMs: ref.timeout_ms,
        ...(ref.system_prompt !== undefined ? { systemPrompt: ref.system_prompt } : {}),
        label: `task ${key.taskIndex}`,
        signal,
        onSandbox: () => {
          provisioned = true;
        },
      });
    } catch (e) {
      throw provisioned ? e : stageError('seed', e);
    } finally {
      deps.gateway.unregisterRollout(scope.id);
    }
    const calls = await attemptCalls(spec.runDir, scope.id);
    const { verify: tested, ...trace } = run;
    await keepTrace(spec.runDir, scope.id, { harness: harness.name, package: harness.install.package, ...trace, sandbox_labels: labels, model_call_ids: calls.map((c) => c.call_id) });
    const failure = harnessFailure(harness, run, calls, ref.timeout_ms);
    if (failure) throw failure;
    const trajectory = trajectoryOf(calls);
    const response = trajectoryResponse(id, trajectory);
    const verify = tested ?? (await inStage('verify', async () => env.verify(parsed.data, response, { state: await env.seedSession(parsed.data), judge })));
    return record(run, trajectory, response, calls, verify, 0);

    /**
     * An SDK agent offered the environment's tools (strands): run on the worker's host, its tool calls
     * run here against the rollout's state, and verify grades that state and the episode with the
     * tools' outputs in it. A tool that threw fails the rollout as a tool error, as in Gymflow's loop.
     */
    async function playWithTools(): Promise<{ reward: number }> {
      // What fails before the runner is under way (no install, a task it cannot play, the session's seed) is setup.
      const played = await inStage('seed', () =>
        runStrandsRollout({
          harness,
          env,
          task: parsed.data,
          baseUrl: scope.baseUrl,
          apiKey: deps.gateway.token,
          model,
          timeoutMs: ref!.timeout_ms,
          ...(ref!.system_prompt !== undefined ? { systemPrompt: ref!.system_prompt } : {}),
          label: `task ${key.taskIndex}`,
          signal,
        }),
      );
      const calls = await attemptCalls(spec.runDir, scope.id);
      const { state, toolFailure, ...trace } = played;
      await keepTrace(spec.runDir, scope.id, {
        harness: harness.name,
        package: harness.install.package,
        ...trace,
        ...(toolFailure ? { tool_failure: toolFailure.message } : {}),
        model_call_ids: calls.map((c) => c.call_id),
      });
      if (toolFailure) throw stageError('tool', toolFailure);
      const failure = harnessFailure(harness, played, calls, ref!.timeout_ms);
      if (failure) throw failure;
      const trajectory = trajectoryOf(calls);
      const response = trajectoryResponse(id, { ...trajectory, output: withToolOutputs(trajectory.output, played.toolCalls) });
      const verify = await inStage('verify', () => env.verify(parsed.data, response, { state, judge }));
      return record(
        { ...played, report: { ...played.report, toolCalls: played.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, output: c.output })) } },
        trajectory,
        response,
        calls,
        verify,
        played.toolCalls.filter((c) => c.status >= 400).length,
      );
    }

    async function record(
      run: Pick<HarnessRun, 'exitCode' | 'durationMs' | 'report'>,
      trajectory: ReturnType<typeof trajectoryOf>,
      response: ReturnType<typeof trajectoryResponse>,
      calls: Awaited<ReturnType<typeof attemptCalls>>,
      verify: VerifyResult,
      failedToolCalls: number,
    ): Promise<{ reward: number }> {
      const totalMs = performance.now() - started;
      const record: RolloutRecord = {
        ...row,
        responses_create_params: row.responses_create_params,
        ...VERIFY_DEFAULTS,
        ...verify,
        response,
        agent_ref: recordAgentRef(row, envRef.name, harness.name),
        _ng_task_index: typeof row._ng_task_index === 'number' ? row._ng_task_index : key.taskIndex,
        // A row of its own per repeat (num_repeats by agent) says which repeat it is.
        _ng_rollout_index: typeof row._ng_rollout_index === 'number' ? row._ng_rollout_index : key.rolloutIndex,
        _gf_model_call_ids: calls.map((c) => c.call_id),
        _gf_diagnostics: {
          input_tokens: trajectory.inputTokens,
          output_tokens: trajectory.outputTokens,
          reasoning_tokens: 0,
          turns: trajectory.turns.length,
          tool_calls: run.report.toolCalls.length,
          failed_tool_calls: failedToolCalls,
          latency_ms: {
            model: trajectory.modelMs,
            tool: Math.max(0, run.durationMs - trajectory.modelMs),
            verify: Math.max(0, totalMs - run.durationMs),
            sandbox: run.durationMs,
            queueing: 0,
            total: totalMs,
          },
          attempts: tryIndex,
        },
        _gf_harness: {
          name: harness.name,
          version: harness.install.package.version,
          exit_code: run.exitCode,
          duration_ms: Math.round(run.durationMs),
          final_text: run.report.finalText,
          tool_calls: run.report.toolCalls,
        },
        ...(key.attemptIndex ? { _ng_attempt_index: key.attemptIndex } : {}),
        _ng_rollout_id: id,
      };
      await store.appendRollout(record);
      return { reward: verify.reward };
    }
  };
}

export type HarnessRollout = ReturnType<typeof createHarnessRollout>;
