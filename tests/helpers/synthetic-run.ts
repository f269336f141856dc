// A run folder written from scratch in the shapes a real run leaves (manifest, tasks, rollout records,
// sidecar failures with a journal, model call log, metrics.json from the finalize metric code), for the
// report's tests and its 100k-rollout benchmark. Files are written in chunks, so 100k rollouts stay small in memory.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { computeRunMetrics, type ScoredRollout } from '../../src/metrics/aggregate';
import { Manifest } from '../../src/runs/manifest';
import { FailureRecord, RolloutRecord } from '../../src/schemas/records';
import { seededRng } from '../../src/util/rng';

export interface SyntheticRunOptions {
  tasks: number;
  repeats: number;
  /** Rollout ordinals (task × repeats + repeat) that go to failures.jsonl instead of rollouts.jsonl. */
  failed?: (task: number, repeat: number) => string | undefined;
  /** Each task's chance of reward 1 is this function of its index. */
  accuracy?: (task: number) => number;
  /** Records carry `_gf_diagnostics` (else latency comes from a model call log). */
  diagnostics?: boolean;
  /** Writes rollout_verdicts.jsonl and quality_summary.json as the health checks would. */
  health?: boolean;
  seed?: number;
}

const REASONS = ['wrong_answer', 'no_boxed_answer'];
/** Words for the reasoning text of each synthetic answer, so transcripts compress like prose, not like one repeated line. */
const WORDS =
  'the option capital country answer first second because region river north south east west city larger smaller older coast border mountain population known named after between across letter choose rule out remaining fits best likely unlikely compare each against question consider history language trade port valley island plain desert forest lake central western eastern'.split(
    ' ',
  );

export async function writeSyntheticRun(dir: string, opts: SyntheticRunOptions): Promise<{ metrics: ReturnType<typeof computeRunMetrics> }> {
  await mkdir(path.join(dir, 'model_calls'), { recursive: true });
  await mkdir(path.join(dir, 'work'), { recursive: true });
  const rng = seededRng(opts.seed ?? 7);
  const expected = opts.tasks * opts.repeats;
  const manifest = Manifest.parse({
    schema_version: 2,
    run_id: `${path.basename(dir)}-synthetic`,
    workflow_id: `gymflow-run-${path.basename(dir)}-synthetic`,
    created_at: '2026-12-01T10:00:00.000Z',
    identity: '0123456789abcdef',
    dataset_hash: 'synthetic',
    config: {
      runId: `${path.basename(dir)}-synthetic`,
      runDir: dir,
      env: { name: 'mcqa', options: {} },
      inputFile: path.join(dir, 'tasks.jsonl'),
      model: { backend: 'mock', env: 'mcqa', seed: 0, accuracy: 0.6, latency_ms: 0, replay_files: [] },
      numRepeats: opts.repeats,
      concurrency: 4,
      shards: 1,
      taskQueue: 'gymflow-run-synthetic',
      retry: { maximumAttempts: 3, initialIntervalMs: 200, maximumIntervalMs: 1000, heartbeatTimeoutMs: 5000 },
      durability: 'turn',
    },
    versions: { gymflow: '0.1.0', node: process.version, git_revision: null },
  });
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

  const files = {
    tasks: path.join(dir, 'tasks.jsonl'),
    rollouts: path.join(dir, 'rollouts.jsonl'),
    failures: path.join(dir, 'failures.jsonl'),
    calls: path.join(dir, 'model_calls', 'synthetic-1-0.jsonl'),
    verdicts: path.join(dir, 'rollout_verdicts.jsonl'),
  };
  for (const [k, f] of Object.entries(files)) if (k !== 'verdicts' || opts.health) await writeFile(f, '');
  const scored: ScoredRollout[] = [];
  const failureClasses: string[] = [];
  const verdictCounts: Record<string, number> = { healthy: 0, unhealthy: 0, unobserved: 0 };
  const buffers = { tasks: [] as string[], rollouts: [] as string[], failures: [] as string[], calls: [] as string[], verdicts: [] as string[] };
  const flush = async (force = false) => {
    for (const [k, lines] of Object.entries(buffers) as [keyof typeof buffers, string[]][]) {
      if (lines.length && (force || lines.length >= 2000)) await appendFile(files[k], lines.splice(0).join(''));
    }
  };

  for (let t = 0; t < opts.tasks; t++) {
    const prompt = `Question ${t}: which option names the capital of country number ${t}? Answer with a letter in \\boxed{}.`;
    const params = { input: [{ role: 'user', content: prompt }] };
    buffers.tasks.push(JSON.stringify({ responses_create_params: params, expected_answer: 'B', _ng_task_index: t }) + '\n');
    const p = opts.accuracy ? opts.accuracy(t) : 0.6;
    for (let r = 0; r < opts.repeats; r++) {
      const id = `${t}-${r}`;
      const failure = opts.failed?.(t, r);
      const verdict = rng.next() < 0.9 ? 'healthy' : 'unhealthy';
      if (failure !== undefined) {
        const record = FailureRecord.parse({
          _ng_task_index: t,
          _ng_rollout_index: r,
          _ng_rollout_id: id,
          _ng_failure_class: 'model_error',
          message: failure,
          stage: 'model',
          attempt: 3,
          failed_at: '2026-12-01T10:05:00.000Z',
        });
        buffers.failures.push(JSON.stringify(record) + '\n');
        failureClasses.push(record._ng_failure_class);
        // The turn it played before failing stays in its journal, as in the turn grain.
        await writeFile(
          path.join(dir, 'work', `${id}.jsonl`),
          `\n${JSON.stringify({ kind: 'model', step: 1, turn: { callId: `c-${id}`, responseId: `r-${id}`, model: 'mock-mcqa', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Partial answer for task ${t} before the upstream failed` }] }], usage: null, incomplete: false } })}\n`,
        );
        if (opts.health) {
          buffers.verdicts.push(JSON.stringify({ _ng_rollout_id: id, verdict: 'unhealthy', checks: ['failed_model_call'] }) + '\n');
          verdictCounts.unhealthy!++;
        }
        continue;
      }
      const reward = rng.next() < p ? 1 : 0;
      const outputTokens = 20 + rng.int(200);
      const latency = 40 + rng.int(900);
      const callId = `call-${id}`;
      const record = RolloutRecord.parse({
        responses_create_params: params,
        expected_answer: 'B',
        _ng_task_index: t,
        _ng_rollout_index: r,
        response: {
          id: `resp-${id}`,
          object: 'response',
          model: 'mock-mcqa-synthetic',
          status: 'completed',
          output: [
            {
              type: 'message',
              role: 'assistant',
              content: [
                {
                  type: 'output_text',
                  text: `Thinking about task ${t}, repeat ${r}. ${Array.from({ length: 30 + rng.int(30) }, () => rng.pick(WORDS)).join(' ')}. The answer is \\boxed{${reward ? 'B' : 'C'}}.`,
                },
              ],
            },
          ],
          usage: { input_tokens: 60 + (t % 50), output_tokens: outputTokens, total_tokens: 60 + (t % 50) + outputTokens },
        },
        ...(reward ? {} : { failure_reason: REASONS[(t + r) % REASONS.length] }),
        _gf_model_call_ids: [callId],
        ...(opts.diagnostics
          ? {
              _gf_diagnostics: {
                input_tokens: 60 + (t % 50),
                output_tokens: outputTokens,
                reasoning_tokens: 0,
                turns: 1,
                tool_calls: 0,
                failed_tool_calls: 0,
                latency_ms: { model: latency, tool: 0, verify: 2, sandbox: 0, queueing: 5, total: latency + 7 },
                attempts: 1,
              },
            }
          : {}),
        reward,
        _ng_rollout_id: id,
      });
      buffers.rollouts.push(JSON.stringify(record) + '\n');
      if (!opts.diagnostics)
        buffers.calls.push(
          JSON.stringify({ call_id: callId, rollout_id: id, step: 1, attempt: 1, backend: 'mock', latency_ms: latency, request: { input_items: 1 }, response: record.response }) + '\n',
        );
      if (opts.health) {
        buffers.verdicts.push(JSON.stringify({ _ng_rollout_id: id, verdict, ...(verdict === 'unhealthy' ? { checks: ['token_count_mismatch'] } : {}) }) + '\n');
        verdictCounts[verdict]!++;
      }
      scored.push({ taskIndex: t, rolloutIndex: r, reward });
    }
    await flush();
  }
  await flush(true);
  if (opts.health)
    await writeFile(path.join(dir, 'quality_summary.json'), JSON.stringify({ rollouts: verdictCounts, verdict: verdictCounts.unhealthy ? 'unhealthy rollouts present' : 'healthy' }, null, 2) + '\n');
  const metrics = computeRunMetrics({ rollouts: scored, failureClasses, expected });
  await writeFile(path.join(dir, 'metrics.json'), JSON.stringify(metrics, null, 2) + '\n');
  return { metrics };
}
