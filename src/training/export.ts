// `gym eval export-training`'s work on a run folder: the call log indexed by rollout (offsets only, so a
// run of any size fits), then each recorded rollout's calls read back, rebuilt, and written as one line.
import { createWriteStream, existsSync } from 'node:fs';
import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { z } from 'zod';
import { GymError } from '../errors';
import { getHarness } from '../harnesses/registry';
import { ModelCallRecord, RolloutRecord } from '../schemas/records';
import { readAt, scanLines } from '../store/result-lines';
import { RunStore } from '../store/run-store';
import { rebuildEpisode, type CallEvidence, type EpisodeOutcome } from './rebuild';
import type { DropReason, MaskReason, TrainingRecord } from './schema';
import { callTokens } from './tokens';
import { answerItems, trailingTurnKey, turnKey } from './turns';

/** A call line read loosely: a bad token bundle is reported by the rebuild, not taken for an unreadable line. */
const LoggedCall = ModelCallRecord.extend({ tokens: z.unknown().optional() });

/** The parts of a rollout record the rebuild reads. */
const RecordOutcome = RolloutRecord.pick({ _ng_rollout_id: true, _ng_task_index: true, _ng_rollout_index: true, reward: true, _gf_model_call_ids: true }).extend({
  response: z.looseObject({ id: z.string().optional(), output: z.array(z.unknown()).optional() }),
});

interface LineRef {
  segment: number;
  offset: number;
  length: number;
}

interface CallIndex {
  segments: string[];
  byRollout: Map<string, LineRef[]>;
  /** Complete lines that are not JSON, per rollout id when one can be read off the text. */
  unreadable: Map<string, string[]>;
  unattributed: number;
}

const ROLLOUT_ID = /"rollout_id"\s*:\s*"((?:[^"\\]|\\.)*)"/;

async function indexCalls(runDir: string): Promise<CallIndex> {
  const dir = path.join(runDir, 'model_calls');
  const segments = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort() : [];
  const index: CallIndex = { segments, byRollout: new Map(), unreadable: new Map(), unattributed: 0 };
  for (const [segment, name] of segments.entries()) {
    const fh = await open(path.join(dir, name), 'r');
    try {
      let line = 0;
      const { size } = await fh.stat();
      // A line still being written (no newline yet) is left out by scanLines: it holds no complete call.
      await scanLines(fh, 0, size, (buf, start, end, at) => {
        line++;
        const text = buf.toString('utf8', start, end);
        let id: unknown;
        try {
          id = (JSON.parse(text) as { rollout_id?: unknown }).rollout_id;
        } catch {
          const found = ROLLOUT_ID.exec(text)?.[1];
          if (found === undefined) index.unattributed++;
          else push(index.unreadable, found, `model_calls/${name} line ${line} is not JSON`);
          return;
        }
        if (typeof id !== 'string') return void index.unattributed++;
        push(index.byRollout, id, { segment, offset: at, length: end - start });
      });
    } finally {
      await fh.close();
    }
  }
  return index;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function evidenceOf(call: z.infer<typeof LoggedCall>): CallEvidence {
  const response = call.response as { id?: unknown } | undefined;
  return {
    call_id: call.call_id,
    step: call.step,
    attempt: call.attempt,
    started_at: call.started_at,
    role: call.role,
    answered: !call.error && call.response != null && (call.status === undefined || call.status < 400),
    tokens: callTokens(call),
    answer_key: turnKey(answerItems(call.response)),
    response_id: typeof response?.id === 'string' ? response.id : undefined,
    ...(call.compaction ? { compaction: call.compaction } : {}),
  };
}

export interface ExportSummary {
  output: string;
  exported: number;
  masked: number;
  maskReasons: Partial<Record<MaskReason, number>>;
  droppedCalls: Partial<Record<DropReason, number>>;
  /** Rollouts in the sidecar (failures.jsonl): they have no reward to train on and are not exported. */
  sidecar: number;
  /** Call log lines that are not JSON and name no rollout. */
  unattributedCallLines: number;
}

export interface ExportOptions {
  output: string;
  /** Called after each rollout written, with how many of how many. */
  onProgress?: (done: number, total: number) => void;
}

/** A run played by an evaluation-only harness (its calls form no token lineage) has no training responses to give. */
async function refuseEvaluationOnly(runDir: string): Promise<void> {
  const manifest = await new RunStore(runDir).readJson<{ config?: { env?: { harness?: { name?: unknown } } } }>(path.join(runDir, 'manifest.json'));
  const name = manifest?.config?.env?.harness?.name;
  if (typeof name !== 'string') return;
  const harness = getHarness(name, `${runDir}/manifest.json: config.env.harness.name`);
  if (!harness.trainable) {
    throw new GymError(
      'BAD_INPUT',
      `run ${runDir} was played by harness ${name}, which is evaluation-only: its model calls do not rebuild into training responses with exact token ids; train with pi, opencode, codex, claude-code, kilo or openclaw`,
    );
  }
}

export async function exportTraining(runDir: string, opts: ExportOptions): Promise<ExportSummary> {
  await refuseEvaluationOnly(runDir);
  if (!existsSync(path.join(runDir, 'rollouts.jsonl')) && !existsSync(path.join(runDir, 'failures.jsonl'))) {
    throw new GymError('NOT_FOUND', `${runDir} holds no rollouts.jsonl: not a run folder, or a run that recorded nothing yet`);
  }
  const outcomes: EpisodeOutcome[] = [];
  let sidecar = 0;
  await new RunStore(runDir).scanResults({
    rollout: (record) => outcomes.push(outcomeOf(record)),
    failure: () => void sidecar++,
  });
  const index = await indexCalls(runDir);
  const summary: ExportSummary = { output: opts.output, exported: 0, masked: 0, maskReasons: {}, droppedCalls: {}, sidecar, unattributedCallLines: index.unattributed };
  const partial = `${opts.output}.partial-${process.pid}`;
  const out = createWriteStream(partial);
  const handles = new Map<number, FileHandle>();
  try {
    for (const outcome of outcomes) {
      const line = await rebuildRollout(runDir, index, handles, outcome);
      if (!out.write(JSON.stringify(line) + '\n')) await once(out, 'drain');
      summary.exported++;
      if (line.masked) {
        summary.masked++;
        summary.maskReasons[line.mask_reason!] = (summary.maskReasons[line.mask_reason!] ?? 0) + 1;
      }
      for (const d of line.dropped_calls) summary.droppedCalls[d.reason] = (summary.droppedCalls[d.reason] ?? 0) + 1;
      opts.onProgress?.(summary.exported, outcomes.length);
    }
    out.end();
    await once(out, 'finish');
    await rename(partial, opts.output);
  } catch (e) {
    out.destroy();
    await rm(partial, { force: true });
    throw e;
  } finally {
    for (const fh of handles.values()) await fh.close();
  }
  return summary;
}

function outcomeOf(record: Record<string, unknown>): EpisodeOutcome {
  const parsed = RecordOutcome.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const id = typeof record._ng_rollout_id === 'string' ? `rollout ${record._ng_rollout_id}` : 'a rollout with no _ng_rollout_id';
    throw new GymError('BAD_INPUT', `rollouts.jsonl: ${id}: ${issue.path.join('.') || 'record'}: ${issue.message}`);
  }
  const r = parsed.data;
  return {
    rollout_id: r._ng_rollout_id,
    task_index: r._ng_task_index,
    rollout_index: r._ng_rollout_index,
    reward: r.reward,
    kept_call_ids: r._gf_model_call_ids,
    response_id: r.response.id,
    final_turn_key: trailingTurnKey(r.response.output ?? []),
  };
}

async function rebuildRollout(runDir: string, index: CallIndex, handles: Map<number, FileHandle>, outcome: EpisodeOutcome): Promise<TrainingRecord> {
  const calls: CallEvidence[] = [];
  const unreadable = [...(index.unreadable.get(outcome.rollout_id) ?? [])];
  for (const ref of index.byRollout.get(outcome.rollout_id) ?? []) {
    let fh = handles.get(ref.segment);
    if (!fh) handles.set(ref.segment, (fh = await open(path.join(runDir, 'model_calls', index.segments[ref.segment]!), 'r')));
    const text = (await readAt(fh, ref.offset, ref.length)).toString('utf8');
    const parsed = LoggedCall.safeParse(JSON.parse(text));
    if (parsed.success) calls.push(evidenceOf(parsed.data));
    else {
      const issue = parsed.error.issues[0]!;
      unreadable.push(`a line of model_calls/${index.segments[ref.segment]} is not a model call record (${issue.path.join('.')}: ${issue.message})`);
    }
  }
  try {
    return rebuildEpisode({ outcome, calls, unreadable });
  } catch (e) {
    throw new GymError('INTERNAL', `rollout ${outcome.rollout_id}: rebuilding its training response failed: ${(e as Error).message}`);
  }
}
