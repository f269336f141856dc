// `gym eval trace <run-folder> <rollout-id>`: the timeline of one rollout, read from the spans the
// workers wrote into the run folder's `traces/` segments.
import { existsSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { formatTimeline, readRolloutSpans } from '../../tracing/timeline';
import { parseFlags } from '../args';

export const EVAL_TRACE_USAGE = `usage: gym eval trace <run-folder> <rollout-id>

  Prints the rollout's spans (turns, model calls through the gateway, tool calls, environment server
  requests, sandbox runs, verify, record) as a tree with each span's start and duration.
  A rollout id is <task index>-<repeat>, as in _ng_rollout_id of rollouts.jsonl.`;

export async function evalTrace(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, {}, EVAL_TRACE_USAGE);
  if (values.help) return say(EVAL_TRACE_USAGE);
  const [runDir, rolloutId] = positionals;
  if (!runDir || !rolloutId || positionals.length > 2) throw new GymError('BAD_FLAG', `give a run folder and a rollout id\n\n${EVAL_TRACE_USAGE}`);
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) throw new GymError('NOT_FOUND', `run folder ${runDir} does not exist`);
  const spans = await readRolloutSpans(runDir, rolloutId);
  if (spans.length === 0) {
    throw new GymError('NOT_FOUND', `no spans of rollout ${rolloutId} in ${runDir}/traces/; the id is <task index>-<repeat> (see _ng_rollout_id), and runs made with GYMFLOW_TRACES=off write none`);
  }
  for (const line of formatTimeline(spans)) say(line);
}
