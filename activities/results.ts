// The end of a run: make the results files canonical, aggregate the run's metrics from them (streaming
// the files, so memory grows with the rollout count, not the file size), write its health reports and
// hand the run to the configured exporters.
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Context } from '@temporalio/activity';
import { exportAfterRun } from '../src/exporters/run-exports';
import { envLabel } from '../src/environments/ref';
import { resolveEnvironment } from '../src/environments/registry';
import type { ModelSpec } from '../src/gateway/spec';
import { runHealthChecks } from '../src/health/run-health';
import { RunAccumulator, type RunEnd, type RunMetrics } from '../src/metrics/aggregate';
import { BreakdownAccumulator, type TaskGroups } from '../src/metrics/breakdown';
import { RolloutAggregator } from '../src/metrics/nemo-gym-aggregate';
import { rowEnvRef } from '../src/routing/row';
import type { GroupKey } from '../src/metrics/diagnostics';
import { Manifest } from '../src/runs/manifest';
import { recordAgentRef, type FailureRecord } from '../src/schemas/records';
import { writeFileAtomic } from '../src/store/jsonl';
import { writeNemoGymFiles } from '../src/store/nemo-gym-files';
import { pullRun, pushRun } from '../src/store/object/finalize';
import { ObjectRunFiles } from '../src/store/object/run-objects';
import { RunStore } from '../src/store/run-store';
import { runActivity } from './envelope';

/**
 * `store`: the run's object store. Its result objects are first made the canonical files of the run folder
 * on this machine (`runDir`, made if missing), which everything below reads as for any run; the finished
 * files then go back into the store.
 */
export function finalizeRun(input: { runDir: string; store?: string; expected: number; status?: RunEnd }): Promise<RunMetrics> {
  return runActivity(async () => {
    const objects = input.store ? new ObjectRunFiles(input.store) : undefined;
    if (objects) await pullRun(objects, input.runDir);
    const status = input.status ?? 'completed';
    // metrics.json is written last but one: once it is there, so is the manifest's status.
    await recordStatus(input.runDir, status);
    const metrics = await aggregateRun(input.runDir, input.expected, status);
    if (!objects) await new RunStore(input.runDir).dropRecordedJournals();
    await runHealthChecks(input.runDir);
    // A cancelled run is partial: it is exported once it is finished (resumed), not before.
    if (status === 'completed') await exportAfterRun(input.runDir, Context.current().info.workflowExecution?.runId, Context.current().log);
    if (objects) await pushRun(objects, input.runDir);
    return metrics;
  });
}

/** Writes metrics.json and task_metrics.jsonl from the run folder's files and returns the metrics. */
export async function aggregateRun(runDir: string, expected: number, status?: RunEnd): Promise<RunMetrics> {
  const store = new RunStore(runDir);
  const manifest = await readManifest(store);
  const tasks = await taskSet(store);
  const countAsZero = manifest?.config.countAsZero ?? [];
  const acc = new RunAccumulator(tasks.ids, countAsZero);
  const breakdown = tasks.groups.size ? new BreakdownAccumulator(tasks.groups, countAsZero) : undefined;
  const group = groupOf(manifest);
  const nemoGym = manifest?.config.outputFormat === 'nemo-gym' ? new RolloutAggregator() : undefined;
  const failures: FailureRecord[] = [];
  await store.scanResults({
    rollout: (r) => {
      nemoGym?.add(r);
      const routed = tasks.groups.get(r._ng_task_index);
      const scored = {
        taskIndex: r._ng_task_index,
        rolloutIndex: r._ng_rollout_index,
        reward: r.reward,
        rewardComponents: r.reward_components,
        answer: typeof r.extracted_answer === 'string' ? r.extracted_answer : null,
        diagnostics: r._gf_diagnostics,
        group: routed ? { ...group, environment: routed.environment, agent: routed.agent } : group,
      };
      acc.addRollout(scored);
      breakdown?.addRollout(scored);
    },
    failure: (f) => {
      if (nemoGym) failures.push(f);
      // The sidecar names a rollout by its line in the task file: a line of one repeat names its task and repeat.
      const key = tasks.repeatLines.get(f._ng_task_index) ?? { taskIndex: f._ng_task_index, rolloutIndex: f._ng_rollout_index };
      acc.addFailure(f._ng_failure_class, key);
      breakdown?.addFailure(f._ng_failure_class, key);
    },
  });
  const perTask = tasks.lines ? expected / tasks.lines : 0;
  const metrics = { ...(status ? { status } : {}), ...acc.result(expected), ...(breakdown ? breakdown.result(perTask) : {}) };
  await writeFileAtomic(
    store.taskMetricsPath,
    acc
      .taskMetrics()
      .map((t) => JSON.stringify(t) + '\n')
      .join(''),
  );
  if (nemoGym && manifest) await writeNemoGymRunFiles(runDir, manifest, tasks, nemoGym, failures);
  await store.writeJson(store.metricsPath, metrics);
  return metrics;
}

/**
 * NeMo Gym's files of the run (`--output-format nemo-gym`). Sidecar rollouts of the classes counted as zero
 * enter the aggregate as NeMo Gym counts them: a scored row of reward 0 under the task's agent.
 */
async function writeNemoGymRunFiles(runDir: string, manifest: Manifest, tasks: Pick<TaskSet, 'groups' | 'repeatLines'>, aggregate: RolloutAggregator, failures: FailureRecord[]): Promise<void> {
  const { env, countAsZero = [], numRepeats } = manifest.config;
  const agent = env.harness?.name ?? resolveEnvironment(env).agent ?? 'simple_agent';
  const agentRefOf = (task: Record<string, unknown>) => recordAgentRef(task, env.name, agent);
  for (const f of failures) {
    if (!countAsZero.includes(f._ng_failure_class)) continue;
    const key = tasks.repeatLines.get(f._ng_task_index) ?? { taskIndex: f._ng_task_index, rolloutIndex: f._ng_rollout_index };
    const routed = tasks.groups.get(key.taskIndex)?.agent;
    aggregate.add({ agent_ref: routed ? { name: routed } : agentRefOf({}), _ng_task_index: key.taskIndex, _ng_rollout_index: key.rolloutIndex, reward: 0, mask_sample: false });
  }
  await writeNemoGymFiles({ runDir, numRepeats, agentRefOf, failures, aggregate: aggregate.result() });
}

/**
 * Every task of the run by its `_ng_task_index`, read line by line from tasks.jsonl, and for a routed
 * run's tasks the agent and environment that play each. A task whose repeats are lines of their own
 * (num_repeats by agent) is one task; each such line's task and repeat are kept by line.
 */
interface TaskSet {
  ids: number[];
  lines: number;
  groups: Map<number, TaskGroups>;
  /** Each line of one repeat by its line in tasks.jsonl: the task and repeat it is. */
  repeatLines: Map<number, { taskIndex: number; rolloutIndex: number }>;
}

async function taskSet(store: RunStore): Promise<TaskSet> {
  const ids: number[] = [];
  const seen = new Set<number>();
  const groups = new Map<number, TaskGroups>();
  const repeatLines = new Map<number, { taskIndex: number; rolloutIndex: number }>();
  let count = 0;
  if (!existsSync(store.tasksPath)) return { ids, lines: 0, groups, repeatLines };
  const lines = createInterface({ input: createReadStream(store.tasksPath), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const row = JSON.parse(line) as Record<string, unknown>;
    const index = typeof row._ng_task_index === 'number' ? row._ng_task_index : count;
    if (typeof row._ng_rollout_index === 'number') repeatLines.set(count, { taskIndex: index, rolloutIndex: row._ng_rollout_index });
    count++;
    const env = rowEnvRef(row);
    if (seen.has(index)) {
      const g = groups.get(index);
      if (g) g.lines = (g.lines ?? 1) + 1;
      continue;
    }
    seen.add(index);
    ids.push(index);
    if (env) groups.set(index, { agent: (row.agent_ref as { name?: string } | undefined)?.name ?? 'unknown', environment: envLabel(env) });
  }
  return { ids, lines: count, groups, repeatLines };
}

const modelLabel = (spec: ModelSpec) => (spec.backend === 'mock' ? `mock:${spec.env}` : spec.model);

/** The run's manifest, or undefined for a folder without one (written by hand). */
async function readManifest(store: RunStore): Promise<Manifest | undefined> {
  const parsed = Manifest.safeParse(await store.readJson<unknown>(store.manifestPath));
  return parsed.success ? parsed.data : undefined;
}

/** How the run ended, in its manifest beside its configuration. */
async function recordStatus(runDir: string, status: RunEnd): Promise<void> {
  const store = new RunStore(runDir);
  const manifest = await readManifest(store);
  if (manifest) await store.writeJson(store.manifestPath, { ...manifest, status, status_at: new Date().toISOString() });
}

/** Who played the run's rollouts, from its manifest; a folder without one is "unknown". */
function groupOf(manifest: Manifest | undefined): GroupKey {
  if (!manifest) return { environment: 'unknown', agent: 'unknown', model: 'unknown' };
  const { env, model } = manifest.config;
  return { environment: envLabel(env), agent: resolveEnvironment(env).agent ?? 'simple_agent', model: modelLabel(model) };
}
