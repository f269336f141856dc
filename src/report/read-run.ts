// Reads a run folder into what the report needs, one compact row per rollout, streaming each file so
// a 100k-rollout run never sits in memory as whole records: transcripts are cut to a per-run budget.
import { existsSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { GymError } from '../errors';
import { envLabel } from '../environments/ref';
import { resolveEnvironment } from '../environments/registry';
import { Manifest } from '../runs/manifest';
import { FileJournal } from '../store/journal';
import { readJsonFile } from '../store/jsonl';
import { eachFileLine, scanLines } from '../store/result-lines';
import { RunStore } from '../store/run-store';
import { FailureRecord, RolloutDiagnostics, RolloutRecord } from '../schemas/records';
import { ResponseObject } from '../schemas/responses';

/** Characters of transcript the whole page carries; each rollout gets its share, within these bounds. */
const TRANSCRIPT_BUDGET = 32_000_000;
const TRANSCRIPT_MIN = 320;
const TRANSCRIPT_MAX = 4_000;
const PROMPT_MAX = 2_000;

/**
 * The fields of a rollout record the report shows, validated with the record's own schema; the response's
 * items are read loosely, because validating every token id of 100k records costs more than the report.
 */
const ReportRecord = RolloutRecord.pick({
  _ng_task_index: true,
  _ng_rollout_index: true,
  _ng_rollout_id: true,
  responses_create_params: true,
  reward: true,
  reward_components: true,
  failure_reason: true,
}).extend({
  response: ResponseObject.pick({ model: true, usage: true }).extend({ output: z.array(z.looseObject({ type: z.string().optional() })) }),
  agent_ref: z.looseObject({ name: z.string() }).optional(),
  _gf_diagnostics: z.unknown().optional(),
});

export interface ReportRollout {
  id: string;
  task: number;
  repeat: number;
  reward: number;
  rewardComponents?: Record<string, number>;
  failureReason: string | null;
  environment: string;
  agent: string;
  model: string;
  /** Numeric series for histograms: tokens, turns, latencies (ms); absent when the run did not record them. */
  series: Record<string, number>;
  transcript: string;
}

export interface ReportFailure {
  id: string;
  task: number;
  repeat: number;
  failureClass: string;
  stage: string;
  attempt: number;
  message: string;
  failedAt: string;
  transcript: string;
}

export interface HealthData {
  /** quality_summary.json as written, when present. */
  summary: Record<string, unknown> | null;
  /** Rollout id → verdict (healthy, unhealthy, unobserved) and its reasons, from rollout_verdicts.jsonl. */
  verdicts: Map<string, { verdict: string; detail: string }> | null;
}

export interface RunData {
  dir: string;
  manifest: Manifest | null;
  metrics: Record<string, unknown>;
  rollouts: ReportRollout[];
  failures: ReportFailure[];
  /** Task index → the task's prompt (its last user message), shared by the task's repeats. */
  prompts: Map<number, string>;
  health: HealthData;
  transcriptChars: number;
  /** Where latency figures came from: per-rollout diagnostics, the model call log, or nowhere. */
  latencySource: 'diagnostics' | 'model_calls' | 'none';
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) + '…' : text);

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

/** One conversation item as a transcript line (items read loosely: a record's token ids are never validated here). */
function itemText(item: Record<string, unknown>): string {
  switch (item.type) {
    case 'function_call':
      return `[tool call] ${String(item.name)}(${String(item.arguments)})`;
    case 'function_call_output':
      return `[tool output] ${contentText(item.output)}`;
    case 'reasoning':
      return `[reasoning] ${Array.isArray(item.summary) ? contentText(item.summary) : ''}`;
    default:
      return `[${String(item.role ?? item.type ?? 'item')}] ${contentText(item.content)}`;
  }
}

function promptOf(params: unknown): string {
  const parsed = z.looseObject({ input: z.unknown() }).safeParse(params);
  if (!parsed.success) return '';
  const input = parsed.data.input;
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  const last = (input as Record<string, unknown>[]).filter((i) => i?.role === 'user').at(-1);
  return last ? contentText(last.content) : '';
}

export function recordIssue(file: string, line: number, error: z.ZodError): GymError {
  const issue = error.issues[0]!;
  return new GymError('BAD_INPUT', `${file} line ${line}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
}

/** Calls onRecord with each JSON line of a file and its 1-based line number; a line that is not JSON is an error naming it. */
export async function eachLine(file: string, onRecord: (value: unknown, line: number) => void): Promise<void> {
  await eachFileLine(file, (text, line) => {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new GymError('BAD_INPUT', `${file} line ${line}: not valid JSON (${(e as Error).message})`);
    }
    onRecord(value, line);
  });
}

function defaultAgent(manifest: Manifest | null): string {
  if (!manifest) return 'unknown';
  try {
    return resolveEnvironment(manifest.config.env).agent ?? 'simple_agent';
  } catch {
    // The run's environment is not registered in this version: the report still reads its files.
    return 'unknown';
  }
}

const CALL_HEAD = /^\{"call_id":"[^"]*","rollout_id":"([^"\\]*)".*?"latency_ms":(\d+(?:\.\d+)?)/;

/** Sums each rollout's model call latency from the call log segments (the head of each line, so responses are not parsed). */
async function modelLatencies(runDir: string, wanted: Set<string>): Promise<Map<string, number>> {
  const dir = path.join(runDir, 'model_calls');
  const out = new Map<string, number>();
  if (!existsSync(dir)) return out;
  for (const name of (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort()) {
    const fh = await open(path.join(dir, name), 'r');
    try {
      const { size } = await fh.stat();
      await scanLines(fh, 0, size, (buf, start, end) => {
        const head = buf.toString('utf8', start, Math.min(end, start + 400));
        let id: string | undefined;
        let ms: number | undefined;
        const m = CALL_HEAD.exec(head);
        if (m) [id, ms] = [m[1], Number(m[2])];
        else {
          try {
            const rec = JSON.parse(buf.toString('utf8', start, end)) as { rollout_id?: unknown; latency_ms?: unknown };
            if (typeof rec.rollout_id === 'string' && typeof rec.latency_ms === 'number') [id, ms] = [rec.rollout_id, rec.latency_ms];
          } catch {
            // A torn last line of a segment a killed writer left: its call was retried and logged again.
          }
        }
        if (id !== undefined && ms !== undefined && wanted.has(id)) out.set(id, (out.get(id) ?? 0) + ms);
      });
    } finally {
      await fh.close();
    }
  }
  return out;
}

async function readHealth(runDir: string): Promise<HealthData> {
  const summaryFile = path.join(runDir, 'quality_summary.json');
  const verdictsFile = path.join(runDir, 'rollout_verdicts.jsonl');
  const summary = (await readJsonFile<Record<string, unknown>>(summaryFile)) ?? null;
  if (!existsSync(verdictsFile)) return { summary, verdicts: null };
  const verdicts = new Map<string, { verdict: string; detail: string }>();
  await eachLine(verdictsFile, (value, line) => {
    const v = value as Record<string, unknown>;
    const id = v._ng_rollout_id ?? v.rollout_id;
    const verdict = v.verdict ?? v.status;
    if (typeof id !== 'string' || typeof verdict !== 'string') throw new GymError('BAD_INPUT', `${verdictsFile} line ${line}: needs a rollout id (_ng_rollout_id) and a verdict`);
    const { _ng_rollout_id: _a, rollout_id: _b, verdict: _c, status: _d, ...rest } = v;
    verdicts.set(id, { verdict, detail: Object.keys(rest).length ? JSON.stringify(rest) : '' });
  });
  return { summary, verdicts };
}

export async function readRun(runDir: string): Promise<RunData> {
  const store = new RunStore(runDir);
  if (!existsSync(store.rolloutsPath) && !existsSync(store.failuresPath)) {
    throw new GymError('NOT_FOUND', `${runDir} is not a run folder: it has neither rollouts.jsonl nor failures.jsonl`);
  }
  const rawManifest = await readJsonFile<unknown>(store.manifestPath);
  const parsedManifest = rawManifest === undefined ? undefined : Manifest.safeParse(rawManifest);
  if (parsedManifest && !parsedManifest.success) throw recordIssue(store.manifestPath, 1, parsedManifest.error);
  const manifest = parsedManifest?.data ?? null;
  const metrics = (await readJsonFile<Record<string, unknown>>(store.metricsPath)) ?? {};
  const environment = manifest ? envLabel(manifest.config.env) : 'unknown';
  const agent = defaultAgent(manifest);

  const expected = Number(metrics.rollouts_recorded ?? 0) + Number(metrics.rollouts_failed ?? 0) || Number(metrics.rollouts_expected ?? 0) || 1;
  const transcriptChars = Math.max(TRANSCRIPT_MIN, Math.min(TRANSCRIPT_MAX, Math.floor(TRANSCRIPT_BUDGET / expected)));

  const prompts = new Map<number, string>();
  const rollouts: ReportRollout[] = [];
  let withDiagnostics = 0;
  await eachLine(store.rolloutsPath, (value, line) => {
    const parsed = ReportRecord.safeParse(value);
    if (!parsed.success) throw recordIssue(store.rolloutsPath, line, parsed.error);
    const r = parsed.data;
    if (!prompts.has(r._ng_task_index)) prompts.set(r._ng_task_index, clip(promptOf(r.responses_create_params), PROMPT_MAX));
    const series: Record<string, number> = {};
    if (r._gf_diagnostics !== undefined) {
      const diag = RolloutDiagnostics.safeParse(r._gf_diagnostics);
      if (!diag.success) throw recordIssue(store.rolloutsPath, line, new z.ZodError(diag.error.issues.map((i) => ({ ...i, path: ['_gf_diagnostics', ...i.path] }))));
      withDiagnostics++;
      const d = diag.data;
      for (const key of ['input_tokens', 'output_tokens', 'reasoning_tokens', 'turns', 'tool_calls', 'failed_tool_calls'] as const) if (d[key] !== undefined) series[key] = d[key];
      for (const [part, ms] of Object.entries(d.latency_ms ?? {})) series[`latency_${part}_ms`] = ms;
    } else if (r.response.usage) {
      series.input_tokens = r.response.usage.input_tokens;
      series.output_tokens = r.response.usage.output_tokens;
    }
    rollouts.push({
      id: r._ng_rollout_id,
      task: r._ng_task_index,
      repeat: r._ng_rollout_index,
      reward: r.reward,
      rewardComponents: r.reward_components,
      failureReason: r.failure_reason ?? null,
      environment,
      agent: r.agent_ref?.name ?? agent,
      model: r.response.model ?? 'unknown',
      series,
      transcript: clip(r.response.output.map(itemText).join('\n'), transcriptChars),
    });
  });

  let latencySource: RunData['latencySource'] = withDiagnostics ? 'diagnostics' : 'none';
  const lacking = new Set(rollouts.filter((r) => r.series.latency_total_ms === undefined).map((r) => r.id));
  if (lacking.size) {
    const latencies = await modelLatencies(runDir, lacking);
    for (const r of rollouts) {
      const ms = latencies.get(r.id);
      if (ms !== undefined) r.series.latency_model_ms = ms;
    }
    if (latencies.size && !withDiagnostics) latencySource = 'model_calls';
  }

  const failures: ReportFailure[] = [];
  const failureRecords: FailureRecord[] = [];
  await eachLine(store.failuresPath, (value, line) => {
    const parsed = FailureRecord.safeParse(value);
    if (!parsed.success) throw recordIssue(store.failuresPath, line, parsed.error);
    failureRecords.push(parsed.data);
  });
  for (const f of failureRecords) {
    // A failed rollout's journal stays in work/ (turn grain): it holds the turns played before the failure.
    const entries = await new FileJournal(path.join(runDir, 'work', `${f._ng_rollout_id}.jsonl`)).read();
    const items = entries.flatMap((e) => (e.kind === 'model' ? e.turn.output : e.kind === 'tool' ? [e.item] : e.kind === 'env' ? e.items : [])) as unknown as Record<string, unknown>[];
    failures.push({
      id: f._ng_rollout_id,
      task: f._ng_task_index,
      repeat: f._ng_rollout_index,
      failureClass: f._ng_failure_class,
      stage: f.stage,
      attempt: f.attempt,
      message: f.message,
      failedAt: f.failed_at,
      transcript: clip(items.map(itemText).join('\n'), transcriptChars),
    });
  }
  await fillFailurePrompts(store, failures, prompts);
  return { dir: runDir, manifest, metrics, rollouts, failures, prompts, health: await readHealth(runDir), transcriptChars, latencySource };
}

/** Failed rollouts whose task no recorded repeat shows get their prompt from tasks.jsonl. */
async function fillFailurePrompts(store: RunStore, failures: readonly ReportFailure[], prompts: Map<number, string>): Promise<void> {
  if (!existsSync(store.tasksPath)) return;
  const count = await store.taskCount();
  for (const f of failures) {
    if (prompts.has(f.task) || f.task < 0 || f.task >= count) continue;
    prompts.set(f.task, clip(promptOf((await store.readTask(f.task)).responses_create_params), PROMPT_MAX));
  }
}
