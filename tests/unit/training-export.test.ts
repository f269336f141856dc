// export-training's reading of a run folder written by hand: calls found by rollout across segments,
// answers' token fields read where the log keeps them, an unreadable line masking the rollout it names,
// sidecar rollouts counted and not exported, the output written whole.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/eval-export-training';
import { formatLine } from '../../src/store/result-lines';
import { exportTraining } from '../../src/training/export';

const tempDir = (prefix: string) => mkdtemp(path.join(os.tmpdir(), prefix));

const tokens = (prompt: number[], generation: number[]) => ({ prompt_token_ids: prompt, generation_token_ids: generation, generation_log_probs: generation.map(() => -0.5) });
const logLine = (rollout: string, id: string, extra: Record<string, unknown>) =>
  JSON.stringify({ call_id: id, rollout_id: rollout, step: 0, attempt: 1, backend: 'test', latency_ms: 1, request: {}, ...extra });
const record = (id: string, task: number, callIds: string[], responseId: string) => ({
  _ng_task_index: task,
  _ng_rollout_index: 0,
  responses_create_params: { input: 'q' },
  response: { id: responseId, object: 'response', output: [] },
  _gf_model_call_ids: callIds,
  reward: task,
  _ng_rollout_id: id,
});

describe('exportTraining', () => {
  it('rebuilds every recorded rollout from the call log and counts the sidecar', async () => {
    const dir = await tempDir('gymflow-training-export-');
    await mkdir(path.join(dir, 'model_calls'));
    await writeFile(path.join(dir, 'rollouts.jsonl'), formatLine('rollout', record('0-0', 0, ['a', 'b'], 'resp_b')) + formatLine('rollout', record('1-0', 1, ['c'], 'resp_c')));
    await writeFile(
      path.join(dir, 'failures.jsonl'),
      formatLine('failure', {
        _ng_task_index: 2,
        _ng_rollout_index: 0,
        _ng_failure_class: 'tool_error',
        message: 'x',
        stage: 'tool',
        attempt: 3,
        failed_at: '2026-01-01T00:00:00Z',
        _ng_rollout_id: '2-0',
      }),
    );
    await writeFile(
      path.join(dir, 'model_calls', 'w1-0.jsonl'),
      [
        // Token fields on the answer's item (the in-process shape), and an earlier retry of the same prompt.
        logLine('0-0', 'a-lost', { started_at: 1, response: { id: 'resp_x', output: [{ type: 'message', role: 'assistant', content: 'x', ...tokens([1, 2], [9]) }] } }),
        logLine('0-0', 'a', { started_at: 2, response: { id: 'resp_a', output: [{ type: 'message', role: 'assistant', content: 'a', ...tokens([1, 2], [3]) }] } }),
        '{"call_id":"c2","rollout_id":"1-0","step":',
        'not json at all',
      ].join('\n') + '\n',
    );
    await writeFile(
      path.join(dir, 'model_calls', 'w2-0.jsonl'),
      // The gateway's shape: `tokens` beside a chat answer; then a line still being written.
      logLine('0-0', 'b', { started_at: 3, response: { id: 'resp_b', choices: [{ message: { role: 'assistant', content: 'b' } }] }, tokens: tokens([1, 2, 3, 4], [5, 6]) }) +
        '\n' +
        logLine('1-0', 'c', { response: { id: 'resp_c', output: [{ type: 'message', role: 'assistant', content: 'c', ...tokens([7], [8]) }] } }) +
        '\n' +
        logLine('0-0', 'torn', {}).slice(0, 30),
    );
    const output = path.join(dir, 'out.jsonl');
    const progress: [number, number][] = [];
    const summary = await exportTraining(dir, { output, onProgress: (done, total) => progress.push([done, total]) });
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(summary).toEqual({
      output,
      exported: 2,
      masked: 1,
      maskReasons: { unreadable_call_record: 1 },
      droppedCalls: { retry: 1, unresolved: 1 },
      sidecar: 1,
      unattributedCallLines: 1,
    });
    const [first, second] = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      _ng_rollout_id: '0-0',
      reward: 0,
      masked: false,
      prompt_token_ids: [1, 2],
      response_token_ids: [3, 4, 5, 6],
      response_mask: [1, 0, 1, 1],
      response_log_probs: [-0.5, 0, -0.5, -0.5],
    });
    expect(first.dropped_calls).toEqual([{ call_id: 'a-lost', reason: 'retry', detail: 'same prompt as call a, which the final path keeps' }]);
    expect(second).toMatchObject({ _ng_rollout_id: '1-0', masked: true, mask_reason: 'unreadable_call_record', mask_detail: 'model_calls/w1-0.jsonl line 3 is not JSON' });
    expect(existsSync(`${output}.partial-${process.pid}`)).toBe(false);
    expect(formatSummary(summary)).toEqual([
      `training: ${output} (2 rollouts, 1 masked: unreadable_call_record 1)`,
      '  calls left out: retry 1, unresolved 1',
      '  not exported: 1 in the sidecar (failures.jsonl)',
      '  model call lines unreadable and naming no rollout: 1',
    ]);
  });

  it('refuses a folder with no results', async () => {
    await expect(exportTraining(await tempDir('gymflow-training-empty-'), { output: '/dev/null' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
