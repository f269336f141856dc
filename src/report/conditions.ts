// The comparison `gym eval run --condition` ends with: per condition (one run folder each), its routing
// condition, reward with the run's task-clustered 95% interval (metrics.json), tokens, policy-call latency,
// the targets that served, cost when prices or usage costs are known, and the reward difference from the
// first condition paired by task (compare.ts). Pure but `readConditions`.
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { summarize } from '../metrics/stats';
import { ModelCallRecord } from '../schemas/records';
import { ROUTING_CONDITION_FILE, SWITCHYARD_CONDITION_FILE } from '../gateway/routing-condition';
import { RunStore } from '../store/run-store';
import { compareScores, readTaskScores } from './compare';
import type { PairedTest } from './paired';
import { eachLine, recordIssue } from './read-run';

/** USD per million input and output tokens, by the model (or Switchyard target, or Gymflow target) that served. */
export type Prices = Record<string, { input: number; output: number }>;

export interface ConditionCall {
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /** The target (or model) that served: the price is looked up by it. */
  servedBy: string;
  /** A cost the upstream reported in its usage, USD. */
  usageCost?: number;
}

export interface ConditionRow {
  name: string;
  runDir: string;
  /** `switchyard <route> (hosted, sha256 …)`, `gymflow <strategy> over …`, or the model. */
  routing: string;
  rolloutsRecorded: number;
  rolloutsFailed: number;
  coverage: number | null;
  meanReward: number | null;
  ci95: [number, number] | null;
  policyCalls: number;
  inputTokens: number;
  outputTokens: number;
  tokensPerRollout: number | null;
  latencyP50Ms: number | null;
  latencyP90Ms: number | null;
  /** Calls per target that served, most first. */
  targets: Record<string, number>;
  /** Null when some call's model has neither a price nor a reported cost. */
  costUsd: number | null;
  /** The reward difference from the first condition, paired by task (null for the first). */
  vsFirst: PairedTest | null;
}

/** What one condition's calls add up to. */
export function callTotals(
  calls: readonly ConditionCall[],
  prices: Prices,
): Pick<ConditionRow, 'policyCalls' | 'inputTokens' | 'outputTokens' | 'latencyP50Ms' | 'latencyP90Ms' | 'targets' | 'costUsd'> {
  const latency = summarize(calls.map((c) => c.latencyMs));
  const targets: Record<string, number> = {};
  let cost: number | null = 0;
  for (const c of calls) {
    targets[c.servedBy] = (targets[c.servedBy] ?? 0) + 1;
    const price = prices[c.servedBy];
    if (c.usageCost !== undefined) cost = cost === null ? null : cost + c.usageCost;
    else if (price) cost = cost === null ? null : cost + (c.inputTokens * price.input + c.outputTokens * price.output) / 1e6;
    else cost = null;
  }
  return {
    policyCalls: calls.length,
    inputTokens: calls.reduce((a, c) => a + c.inputTokens, 0),
    outputTokens: calls.reduce((a, c) => a + c.outputTokens, 0),
    latencyP50Ms: latency?.p50 ?? null,
    latencyP90Ms: latency?.p90 ?? null,
    targets: Object.fromEntries(Object.entries(targets).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))),
    costUsd: calls.length === 0 ? 0 : cost,
  };
}

const count = (usage: Record<string, unknown> | null | undefined, ...keys: string[]): number => {
  for (const k of keys) if (typeof usage?.[k] === 'number') return usage[k] as number;
  return 0;
};

/** An answered policy call as the comparison counts it. */
export function conditionCall(record: ModelCallRecord): ConditionCall | undefined {
  if (record.role === 'judge' || record.error !== undefined || (record.status !== undefined && record.status >= 300)) return undefined;
  const response = record.response as { usage?: Record<string, unknown> | null; model?: unknown } | undefined;
  const usage = record.usage ?? response?.usage ?? null;
  const cost = usage?.cost;
  return {
    latencyMs: record.latency_ms,
    inputTokens: count(usage, 'input_tokens', 'prompt_tokens'),
    outputTokens: count(usage, 'output_tokens', 'completion_tokens'),
    servedBy: record.routing?.target ?? (typeof response?.model === 'string' ? response.model : (record.model ?? 'unknown')),
    ...(typeof cost === 'number' ? { usageCost: cost } : {}),
  };
}

async function readJson(file: string): Promise<any> {
  return existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) : undefined;
}

/** The routing condition in words, from the run folder's condition file (or the manifest's model). */
async function routingOf(runDir: string): Promise<string> {
  const sy = await readJson(path.join(runDir, SWITCHYARD_CONDITION_FILE));
  if (sy)
    return `switchyard route ${sy.route} (${sy.mode}${sy.deployment_sha256 ? `, deployment sha256 ${String(sy.deployment_sha256).slice(0, 12)}` : ''}${sy.nemo_switchyard_version ? `, nemo-switchyard ${sy.nemo_switchyard_version}` : ''})`;
  const gf = await readJson(path.join(runDir, ROUTING_CONDITION_FILE));
  if (gf) return `gymflow ${gf.strategy?.type} over ${Object.keys(gf.targets ?? {}).join(', ')}`;
  const model = (await readJson(new RunStore(runDir).manifestPath))?.config?.model;
  return model ? `${model.backend} ${model.model ?? model.env ?? ''}`.trim() : 'unknown';
}

async function readCalls(runDir: string): Promise<ConditionCall[]> {
  const dir = path.join(runDir, 'model_calls');
  const calls: ConditionCall[] = [];
  if (!existsSync(dir)) return calls;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const at = path.join(dir, file);
    await eachLine(at, (value, line) => {
      const parsed = ModelCallRecord.safeParse(value);
      if (!parsed.success) throw recordIssue(at, line, parsed.error);
      const call = conditionCall(parsed.data);
      if (call) calls.push(call);
    });
  }
  return calls;
}

export async function readConditions(conditions: readonly { name: string; runDir: string }[], prices: Prices): Promise<ConditionRow[]> {
  const first = conditions.length ? await readTaskScores(conditions[0]!.runDir) : undefined;
  const rows: ConditionRow[] = [];
  for (const [i, c] of conditions.entries()) {
    const metrics = (await readJson(new RunStore(c.runDir).metricsPath)) ?? {};
    const totals = callTotals(await readCalls(c.runDir), prices);
    const recorded = metrics.rollouts_recorded ?? 0;
    const vsFirst = i === 0 ? null : (compareScores(first!, await readTaskScores(c.runDir)).diffs.find((d) => d.metric === 'mean_reward')?.test ?? null);
    rows.push({
      name: c.name,
      runDir: c.runDir,
      routing: await routingOf(c.runDir),
      rolloutsRecorded: recorded,
      rolloutsFailed: metrics.rollouts_failed ?? 0,
      coverage: metrics.coverage ?? null,
      meanReward: metrics.mean_reward ?? null,
      ci95: metrics.ci95_reward_clustered ?? metrics.ci95_reward ?? null,
      tokensPerRollout: recorded ? (totals.inputTokens + totals.outputTokens) / recorded : null,
      ...totals,
      vsFirst,
    });
  }
  return rows;
}

const fixed = (x: number | null, digits: number) => (x === null ? 'n/a' : x.toFixed(digits));

export function formatConditions(rows: readonly ConditionRow[]): string {
  const head = ['condition', 'rollouts', 'mean reward', '95% CI', 'Δ vs ' + (rows[0]?.name ?? 'first') + ' (p)', 'tokens in/out', 'tokens/rollout', 'latency p50/p90 ms', 'cost USD', 'served by'];
  const table = rows.map((r) => [
    r.name,
    `${r.rolloutsRecorded}${r.rolloutsFailed ? ` (+${r.rolloutsFailed} failed)` : ''}`,
    fixed(r.meanReward, 4),
    r.ci95 ? `[${r.ci95[0].toFixed(4)}, ${r.ci95[1].toFixed(4)}]` : 'n/a',
    r.vsFirst ? `${r.vsFirst.meanDiff >= 0 ? '+' : ''}${r.vsFirst.meanDiff.toFixed(4)} (${r.vsFirst.p === null ? 'n/a' : r.vsFirst.p < 0.0001 ? '<0.0001' : r.vsFirst.p.toFixed(4)})` : '—',
    `${r.inputTokens}/${r.outputTokens}`,
    fixed(r.tokensPerRollout, 1),
    `${fixed(r.latencyP50Ms, 1)}/${fixed(r.latencyP90Ms, 1)}`,
    r.costUsd === null ? 'unknown' : r.costUsd.toFixed(4),
    Object.entries(r.targets)
      .map(([t, n]) => `${t}×${n}`)
      .join(' ') || '—',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(head),
    ...table.map(line),
    ...rows.map((r) => `${r.name}: ${r.routing} → ${r.runDir}`),
    "95% CI: task-clustered (docs/metrics.md); Δ: mean reward minus the first condition's over the tasks both played, p a paired t-test; tokens and latency over answered policy calls; cost from --price or the upstream's usage.cost.",
  ].join('\n');
}
