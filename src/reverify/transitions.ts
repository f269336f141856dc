// NeMo Gym's aviary agent records a rollout's output as a list of transitions, each the whole episode so
// far, with the row's input [] and the task as `task_idx`; this reads such a row as a flat episode.
import type { Row } from './join';

function isTransitionRow(row: Row): boolean {
  const response = row.response as { output?: unknown; contains_transitions?: unknown } | undefined;
  return response?.contains_transitions === true && Array.isArray(response.output) && response.output.every(Array.isArray);
}

/**
 * The row with its last transition as the output (the environment's opening observations, the leading
 * user messages, moved to the input) and `task_idx` as `_ng_task_index`; any other row unchanged.
 */
export function flattenTransitions(row: Row): Row {
  if (!isTransitionRow(row)) return row;
  const response = row.response as Row & { output: Row[][] };
  const last = response.output.at(-1) ?? [];
  let opening = 0;
  while (opening < last.length && last[opening]!.role === 'user') opening++;
  const params = (row.responses_create_params ?? {}) as Row;
  const taskIndex = typeof row.task_idx === 'number' ? { _ng_task_index: row.task_idx } : {};
  return {
    ...row,
    ...taskIndex,
    responses_create_params: { ...params, input: last.slice(0, opening) },
    response: { ...response, output: last.slice(opening), contains_transitions: false },
  };
}
