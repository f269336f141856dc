// NeMo Gym records openair_congestion's example episodes as a `trajectory` of steps, with only the last
// call in `response`; this rebuilds the whole episode's output as the gymnasium agent would have kept it.
import { jsonDumps } from '../../python/json';
import type { ConversationItem } from '../../schemas/responses';

interface RecordedStep {
  action: { name: string };
  next_observation: string;
  guardrail_accepted: boolean;
  rejection_reason: string | null;
  step_idx: number;
  terminated: boolean;
  truncated: boolean;
}

/** A recorded row that holds its episode as a trajectory of steps. */
export function isTrajectoryRow(row: Record<string, unknown>): row is Record<string, unknown> & { trajectory: RecordedStep[] } {
  return Array.isArray(row.trajectory) && row.trajectory.every((s) => typeof (s as RecordedStep)?.next_observation === 'string');
}

/**
 * The trajectory's calls as the model sent them: the recording sorts argument keys and loses 10.0 vs 10,
 * so each call is read back from the next observation's echo of it (a Python dict repr).
 */
export function sentArguments(step: RecordedStep): string {
  const echoed = /\nLast action: \w+\((.*)\); last reward/.exec(step.next_observation)?.[1] ?? '{}';
  return echoed.replaceAll("'", '"').replaceAll('None', 'null').replaceAll('True', 'true').replaceAll('False', 'false');
}

/** The row with `response.output` holding every step: call, tool output, and the next observation. */
export function withWholeEpisode(row: Record<string, unknown> & { trajectory: RecordedStep[] }): Record<string, unknown> {
  const output: ConversationItem[] = [];
  row.trajectory.forEach((step, n) => {
    const callId = `call_${n}`;
    output.push({ type: 'function_call', call_id: callId, name: step.action.name, arguments: sentArguments(step) });
    if (step.terminated || step.truncated) return;
    const outcome = { accepted: step.guardrail_accepted, rejection_reason: step.rejection_reason, step_idx: step.step_idx };
    output.push({ type: 'function_call_output', call_id: callId, output: jsonDumps(outcome) });
    output.push({ type: 'message', role: 'user', content: step.next_observation });
  });
  return { ...row, response: { ...(row.response as object), output } };
}
