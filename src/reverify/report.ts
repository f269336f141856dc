// What a re-verification tells its user: the rewritten rollout rows and a summary of where the
// recomputed rewards agree with the recorded ones. Disagreement is data, so it is listed, not thrown.
import { outputText, type ConversationItem } from '../schemas/responses';
import type { CheckedRollout, ReverifyReport } from './index';
import type { Row } from './join';

const MAX_LISTED = 20;
// Rewards recomputed in another language can differ in the last bits of a float (e.g. a squared distance).
const TOLERANCE = 1e-9;

export interface Disagreement {
  line: number;
  taskIndex: number | null;
  env: string;
  recorded: number;
  recomputed: number;
}

/** A row that got no reward: its judge gave no verdict, or its verify threw. */
export interface Failure {
  line: number;
  taskIndex: number | null;
  message: string;
}

/** How many of an environment's compared rows agree. */
export interface Agreement {
  compared: number;
  agreed: number;
}

export interface ReverifySummary {
  /** The environments that graded (a routed run's rows each name their own), comma-separated. */
  env: string;
  total: number;
  verified: number;
  /** Verified rows that carry a recorded reward: the denominator of the agreement. */
  compared: number;
  agreed: number;
  disagreements: Disagreement[];
  judgeFailed: Failure[];
  verifyErrors: Failure[];
  /** The agreement of each environment's rows, when several graded. */
  perEnvironment?: Record<string, Agreement>;
}

function rewardsAgree(a: number, b: number): boolean {
  return Math.abs(a - b) <= TOLERANCE;
}

export function summarize(report: ReverifyReport): ReverifySummary {
  const summary: ReverifySummary = { env: report.envs.join(', '), total: report.total, verified: 0, compared: 0, agreed: 0, disagreements: [], judgeFailed: [], verifyErrors: [] };
  const perEnvironment: Record<string, Agreement> = Object.fromEntries(report.envs.map((e) => [e, { compared: 0, agreed: 0 }]));
  for (const c of report.checked) {
    if (c.outcome.status !== 'verified') {
      const failure = { line: c.line, taskIndex: c.taskIndex, message: c.outcome.message };
      (c.outcome.status === 'judge_failed' ? summary.judgeFailed : summary.verifyErrors).push(failure);
      continue;
    }
    summary.verified++;
    if (c.recorded === null) continue;
    summary.compared++;
    perEnvironment[c.env]!.compared++;
    const recomputed = c.outcome.result.reward;
    if (rewardsAgree(recomputed, c.recorded)) {
      summary.agreed++;
      perEnvironment[c.env]!.agreed++;
    } else summary.disagreements.push({ line: c.line, taskIndex: c.taskIndex, env: c.env, recorded: c.recorded, recomputed });
  }
  return report.envs.length > 1 ? { ...summary, perEnvironment } : summary;
}

/** The rollout with its recomputed verify fields, the recorded reward kept beside them; a failed row gets its class instead of a reward. */
export function reverifiedRow(c: CheckedRollout): Row {
  const { reward: _reward, reward_components: _components, failure_reason: _reason, _ng_failure_class: _class, ...rest } = c.rollout;
  if (c.outcome.status === 'verified') return { ...rest, ...c.outcome.result, _gf_recorded_reward: c.recorded };
  return { ...rest, _ng_failure_class: c.outcome.status, _gf_failure_message: c.outcome.message, _gf_recorded_reward: c.recorded };
}

function answerPreview(rollout: Row): string {
  const output = (rollout.response as { output?: ConversationItem[] } | undefined)?.output ?? [];
  const first = outputText(output).trim().split('\n')[0] ?? '';
  return first.length > 60 ? `${first.slice(0, 60)}…` : first;
}

function listed<T>(title: string, items: readonly T[], line: (item: T) => string): string[] {
  if (!items.length) return [];
  const lines = [`${title} (${items.length}):`, ...items.slice(0, MAX_LISTED).map((i) => `  ${line(i)}`)];
  if (items.length > MAX_LISTED) lines.push(`  … and ${items.length - MAX_LISTED} more`);
  return lines;
}

const where = (line: number, taskIndex: number | null) => `line ${line}${taskIndex === null ? '' : `, task ${taskIndex}`}`;

export function formatSummary(report: ReverifyReport, summary: ReverifySummary): string[] {
  const by = report.joinedBy;
  const joins = [by.index && `${by.index} by _ng_task_index`, by.input && `${by.input} by input`, by.self && `${by.self} as their own task`].filter(Boolean).join(', ');
  const rollouts = new Map(report.checked.map((c) => [c.line, c.rollout]));
  return [
    `${summary.env}: ${summary.total} rollout(s), ${report.checked.length} re-verified (joined ${joins || 'none'})`,
    `agreement: ${summary.agreed}/${summary.compared} recomputed rewards equal the recorded ones` +
      (summary.verified > summary.compared ? ` (${summary.verified - summary.compared} row(s) had no recorded reward)` : ''),
    ...Object.entries(summary.perEnvironment ?? {}).map(([env, a]) => `  ${env}: ${a.agreed}/${a.compared} agree`),
    ...(by.self
      ? [
          `note: ${by.self} rollout(s) were graded as their own task; NeMo Gym's recorded rows drop task fields verify may need, so pass --tasks with the file they were played from if rewards disagree`,
        ]
      : []),
    ...listed('disagreements', summary.disagreements, (d) => {
      const preview = answerPreview(rollouts.get(d.line) ?? {});
      const env = summary.perEnvironment ? ` (${d.env})` : '';
      return `${where(d.line, d.taskIndex)}${env}: ${d.recorded} → ${d.recomputed}${preview ? `  ${JSON.stringify(preview)}` : ''}`;
    }),
    ...listed('judge_failed (no reward)', summary.judgeFailed, (f) => `${where(f.line, f.taskIndex)}: ${f.message}`),
    ...listed('verify_error (no reward)', summary.verifyErrors, (f) => `${where(f.line, f.taskIndex)}: ${f.message}`),
    ...listed('skipped, no task', report.unjoined, (u) => `line ${u.line}: ${u.reason}`),
  ];
}
