// Replays a run's workflow histories against the workflow code of this checkout, so a code change that
// would break runs in flight (non-determinism) is found before it is deployed, naming workflow and event.
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../workers/bundle';
import { WORKFLOWS_PATH } from '../../workers/worker';
import { parseHistory, type RunHistory } from './history-files';

export interface ReplayOutcome {
  workflowId: string;
  runId: string;
  file?: string;
  /** Undefined when the history replayed cleanly. */
  problem?: {
    kind: 'nondeterminism' | 'error';
    /** Temporal's own words, e.g. "[TMPRL1100] Nondeterminism error: Activity type of scheduled event …". */
    message: string;
    /** The history event the code disagreed with, when the message or the history names it. */
    eventId?: number;
  };
}

/** Core's message, without the SDK's wrapping ("Workflow activation completion failed: Failure { … }"). */
function coreMessage(text: string): string {
  const m = /message: "((?:[^"\\]|\\.)*)"/.exec(text);
  return m ? m[1]!.replace(/\\"/g, '"') : text;
}

/** The event a non-determinism message points at: by id when it names one, else by the recorded value it quotes. */
function eventOf(message: string, history: unknown): number | undefined {
  const byId = /HistoryEvent\(id: (\d+)|event_id: (\d+)/.exec(message);
  if (byId) return Number(byId[1] ?? byId[2]);
  const quoted = /of scheduled event '([^']+)'/.exec(message)?.[1];
  if (quoted === undefined) return undefined;
  const events = (history as { events?: { eventId: string }[] }).events ?? [];
  const hit = events.find((e) => JSON.stringify(e).includes(JSON.stringify(quoted)));
  return hit ? Number(hit.eventId) : undefined;
}

export async function replayRunHistories(histories: readonly (RunHistory & { file?: string })[]): Promise<ReplayOutcome[]> {
  const parsed = histories.map((h) => ({ ...h, history: parseHistory(h) }));
  const byKey = new Map(parsed.map((h) => [`${h.workflowId}|${h.runId}`, h]));
  const outcomes: ReplayOutcome[] = [];
  let i = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: await workflowBundle(WORKFLOWS_PATH, []) },
    parsed.map(({ workflowId, history }) => ({ workflowId, history })),
  )) {
    // Results come in input order; the run id is the history's own when the SDK reports it.
    const source = byKey.get(`${r.workflowId}|${r.runId}`) ?? parsed[i]!;
    i++;
    const outcome: ReplayOutcome = { workflowId: source.workflowId, runId: source.runId, file: source.file };
    if (r.error) {
      const message = coreMessage(r.error.message);
      const kind = r.error instanceof DeterminismViolationError || /Nondeterminism/i.test(message) ? 'nondeterminism' : 'error';
      outcome.problem = { kind, message, eventId: kind === 'nondeterminism' ? eventOf(message, source.history) : undefined };
    }
    outcomes.push(outcome);
  }
  return outcomes;
}

export function formatReplay(o: ReplayOutcome): string {
  const name = `${o.workflowId} (run ${o.runId})`;
  if (!o.problem) return `ok          ${name}`;
  const at = o.problem.eventId !== undefined ? ` at event ${o.problem.eventId}` : '';
  const label = o.problem.kind === 'nondeterminism' ? 'NON-DETERMINISTIC' : 'REPLAY FAILED';
  return `${label} ${name}${at}${o.file ? ` [${o.file}]` : ''}\n    ${o.problem.message}`;
}
