// `gym eval history|replay|show`: export a run's workflow histories into its folder with a per-rollout
// summary, replay them against this checkout's workflow code, and show one rollout end to end.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { readExecution, type Execution } from '../../audit/history-events';
import { fetchRunHistories, historiesDir, historyRetention, parseHistory, readHistories, writeHistories, type RunHistory } from '../../audit/history-files';
import { formatReplay, replayRunHistories } from '../../audit/replay';
import { readRolloutEvidence } from '../../audit/rollout-evidence';
import { formatRolloutReport } from '../../audit/rollout-report';
import { runTrail } from '../../audit/rollout-trail';
import { formatSummaryLines, summarizeRun, writeSummary } from '../../audit/summary';
import { readManifest } from '../../runs/client';
import type { Manifest } from '../../runs/manifest';
import { parseFlags } from '../args';
import { openSession } from '../session';
import { runFolder } from './eval-manage';

const HISTORY_USAGE = `usage: gym eval history <run folder> [--json]

  writes every workflow history of the run (its workflow and all shard executions) to <run>/histories/,
  with summary.txt and summary.json: per rollout, which shard execution drove each step, retries, the end`;
const REPLAY_USAGE = `usage: gym eval replay <run folder> [--live]

  replays the run's histories against this checkout's workflow code; exits non-zero on any failure
  --live  fetch the histories from Temporal even when <run>/histories/ holds an export`;
const SHOW_USAGE = `usage: gym eval show <run folder> --rollout <id> [--json]

  one rollout's steps, model calls, retries and reward, from the histories and the run folder`;

/** Shown wherever histories come from the server: they do not stay there forever. */
const RETENTION_NOTE = "Temporal keeps a closed run's history only for its namespace's retention period; `gym eval history` keeps a copy in the run folder";

const MAX_SUMMARY_LINES = 40;

async function runManifest(positionals: string[], usage: string): Promise<Manifest> {
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run folder\n\n${usage}`);
  const dir = runFolder(positionals[0]!);
  const manifest = await readManifest(dir);
  if (!manifest) throw new GymError('NOT_FOUND', `${dir} holds no manifest.json; pass the folder given to --output of gym eval run`);
  return { ...manifest, config: { ...manifest.config, runDir: dir } };
}

async function liveHistories(manifest: Manifest, say: (line: string) => void): Promise<{ histories: RunHistory[]; retention?: string }> {
  const session = await openSession(say);
  try {
    const histories = await fetchRunHistories(session.client, manifest.workflow_id);
    const retention = await historyRetention(session.client);
    if (!histories.length) {
      throw new GymError(
        'NOT_FOUND',
        `Temporal at ${session.settings.address} holds no history of ${manifest.workflow_id}${retention ? ` (it keeps closed runs for ${retention})` : ''}; ${RETENTION_NOTE}`,
      );
    }
    return { histories, retention };
  } finally {
    await session.close();
  }
}

const executionsOf = (histories: readonly (RunHistory & { file?: string })[]): Execution[] =>
  histories.map((h) => ({ ...readExecution(h.workflowId, parseHistory(h), h.file ?? h.workflowId), runId: h.runId }));

export async function evalHistory(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, HISTORY_USAGE);
  if (values.help) return say(HISTORY_USAGE);
  const manifest = await runManifest(positionals, HISTORY_USAGE);
  const runDir = manifest.config.runDir;
  const { histories, retention } = await liveHistories(manifest, say);
  const files = await writeHistories(runDir, histories);
  const summary = await summarizeRun(runDir, executionsOf(histories));
  const written = await writeSummary(runDir, summary);
  if (values.json) return say(JSON.stringify({ dir: historiesDir(runDir), files, summary: written, retention: retention ?? null }, null, 2));
  const shards = histories.filter((h) => h.workflowId !== manifest.workflow_id).length;
  say(`exported ${files.length} histories of ${manifest.workflow_id} (${files.length - shards} of the run workflow, ${shards} of its shards) to ${historiesDir(runDir)}`);
  say(`${RETENTION_NOTE}${retention ? ` (here ${retention})` : ''}`);
  const lines = formatSummaryLines(summary);
  for (const line of lines.slice(0, MAX_SUMMARY_LINES)) say(line);
  if (lines.length > MAX_SUMMARY_LINES) say(`… ${lines.length - MAX_SUMMARY_LINES} more lines`);
  say(`summary: ${written.text} (and ${written.json})`);
}

export async function evalReplay(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { live: { type: 'boolean' } }, REPLAY_USAGE);
  if (values.help) return say(REPLAY_USAGE);
  const manifest = await runManifest(positionals, REPLAY_USAGE);
  const exported = values.live ? undefined : await readHistories(manifest.config.runDir);
  const histories = exported ?? (await liveHistories(manifest, say)).histories;
  say(`replaying ${histories.length} histories of ${manifest.workflow_id} ${exported ? `from ${historiesDir(manifest.config.runDir)}` : 'fetched from Temporal'}`);
  const outcomes = await replayRunHistories(histories);
  for (const o of outcomes) say(formatReplay(o));
  const bad = outcomes.filter((o) => o.problem);
  if (bad.length) {
    const nondeterministic = bad.filter((o) => o.problem!.kind === 'nondeterminism').length;
    throw new GymError(
      'RUN_FAILED',
      `${bad.length} of ${outcomes.length} histories do not replay against this workflow code (${nondeterministic} non-deterministic); ` +
        'a change that alters the commands a running workflow issues must be guarded with patched()',
      bad.map((o) => `${o.workflowId} (run ${o.runId})${o.problem!.eventId !== undefined ? ` at event ${o.problem!.eventId}` : ''}: ${o.problem!.message}`),
    );
  }
  say(`all ${outcomes.length} histories replay against this workflow code`);
}

export async function evalShow(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { rollout: { type: 'string' }, json: { type: 'boolean' } }, SHOW_USAGE);
  if (values.help) return say(SHOW_USAGE);
  const manifest = await runManifest(positionals, SHOW_USAGE);
  const id = values.rollout;
  if (!id) throw new GymError('BAD_FLAG', `--rollout <id> is required (ids are <task index>-<repeat>, as _ng_rollout_id in rollouts.jsonl)\n\n${SHOW_USAGE}`);
  const m = /^(\d+)-(\d+)$/.exec(id);
  if (!m || Number(m[2]) >= manifest.config.numRepeats) {
    throw new GymError('BAD_FLAG', `--rollout ${id} is not a rollout of this run: ids are <task index>-<repeat> with repeat below ${manifest.config.numRepeats}`);
  }
  const runDir = manifest.config.runDir;
  const exported = await readHistories(runDir);
  let histories: RunHistory[] | undefined = exported;
  let historyNote = `from ${historiesDir(runDir)}`;
  if (!histories) {
    try {
      histories = (await liveHistories(manifest, say)).histories;
      historyNote = 'fetched from Temporal';
    } catch (e) {
      if (!(e instanceof GymError && (e.code === 'NOT_FOUND' || e.code === 'UNREACHABLE'))) throw e;
      historyNote = `no history: ${e.message}`;
    }
  }
  const trail = histories ? runTrail(executionsOf(histories)).rollouts.find((t) => t.rollout_id === id) : undefined;
  const evidence = await readRolloutEvidence(runDir, id);
  if (!trail && !evidence.record && !evidence.failure && !evidence.journal.length && !evidence.calls.length) {
    throw new GymError('NOT_FOUND', `rollout ${id} appears neither in the histories nor in ${runDir} (its tasks.jsonl may have fewer tasks)`);
  }
  if (values.json) return say(JSON.stringify({ rollout_id: id, history: trail ?? null, history_source: historyNote, ...evidence }, null, 2));
  for (const line of formatRolloutReport(id, trail, evidence, histories ? `not seen in the histories (${historyNote})` : historyNote)) say(line);
}
