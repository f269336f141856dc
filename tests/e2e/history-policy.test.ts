// The simple agent with compaction, end to end: runs of example_multi_step with the mock policy (real
// o200k token ids) under `--history-policy last-turns=2` in both grains and without a policy; what each
// call was sent, the records' account of it, and `gym eval export-training` starting a new root where the
// policy cut the history, with the exact ids the mock returned for that call.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { gymHere } from '../helpers/gym-here';
import { runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { callLogLines, returnedTokens } from '../helpers/training-check';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
const ROLLOUTS = 2;
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A run of the first rows, one rollout at a time; its records, its calls by rollout in order, and its training export. */
async function play(flags: Record<string, string>) {
  const runDir = path.join(await tempDir('gymflow-history-policy-'), 'run');
  const config = buildRunConfig({ env: 'example_multi_step', model: 'mock', input: INPUT, output: runDir, limit: String(ROLLOUTS), concurrency: '1', ...flags });
  const result = await runInProcess(server, config);
  expect(result.metrics.rollouts_recorded).toBe(ROLLOUTS);
  const records = readJsonl(path.join(runDir, 'rollouts.jsonl'));
  const calls = callLogLines(runDir);
  const callsOf = (record: Record<string, any>) => record._gf_model_call_ids.map((id: string) => calls.find((c) => c.call_id === id)!);
  const out = path.join(runDir, 'training.jsonl');
  const exported = await gymHere(['eval', 'export-training', runDir, '--output', out]);
  expect(exported.code, exported.stderr).toBe(0);
  return { config, records, callsOf, training: readJsonl(out), summary: exported.stdout };
}

/** Whether call b's prompt holds call a's prompt and generation as its start. */
function extends_(a: Record<string, any>, b: Record<string, any>): boolean {
  const before = [...returnedTokens(a).prompt_token_ids, ...returnedTokens(a).generation_token_ids];
  const prompt: number[] = returnedTokens(b).prompt_token_ids;
  return before.length <= prompt.length && before.every((t, i) => prompt[i] === t);
}

describe('--history-policy', () => {
  it.each(['turn', 'rollout'])(
    'shows the model only the last two turns (%s grain), records what it left out, and trains on the chain the cut started',
    async (durability) => {
      const { config, records, callsOf, training, summary } = await play({ 'history-policy': 'last-turns=2', durability });
      expect(config.historyPolicy).toEqual({ last_turns: 2 });
      for (const [i, record] of records.entries()) {
        // Two lookups, the extraction, then "Done." on a history without the first lookup: the mock still scores.
        expect(record.reward).toBe(1);
        const calls = callsOf(record);
        expect(calls).toHaveLength(4);
        const initial = record.responses_create_params.input.length;
        // Each turn is a tool call and its output: the fourth call was sent the task and two of its three turns.
        expect(calls.map((c: any) => c.request.input_items)).toEqual([initial, initial + 2, initial + 4, initial + 4]);
        expect(calls.slice(0, 3).every((c: any) => c.compaction === undefined)).toBe(true);
        expect(calls[3].compaction).toMatchObject({ turns: 3, turns_dropped: 1, items_dropped: 2, images_omitted: 0, reasoning_omitted: 0 });
        expect(calls[3].compaction.tokens_after).toBeLessThan(calls[3].compaction.tokens_before);
        expect(record._gf_compaction).toEqual({ policy: { last_turns: 2 }, compacted_calls: [{ call_id: calls[3].call_id, step: calls[3].step, ...calls[3].compaction }] });
        // The scored transcript is the whole episode, not what the last call was shown.
        expect(record.response.output.filter((o: any) => o.type === 'function_call')).toHaveLength(3);

        // The tokens agree: the first three calls extend each other, the fourth does not extend the third.
        expect(extends_(calls[0], calls[1]) && extends_(calls[1], calls[2])).toBe(true);
        expect(extends_(calls[2], calls[3])).toBe(false);
        const line = training[i]!;
        const last = returnedTokens(calls[3]);
        expect(line).toMatchObject({ _ng_rollout_id: record._ng_rollout_id, masked: false, reward: 1, chains: 2 });
        expect(line.prompt_token_ids).toEqual(last.prompt_token_ids);
        expect(line.response_token_ids).toEqual(last.generation_token_ids);
        expect(line.response_log_probs).toEqual(last.generation_log_probs);
        expect(line.response_mask).toEqual(last.generation_token_ids.map(() => 1));
        expect(line.calls.map((c: any) => c.call_id)).toEqual([calls[3].call_id]);
        expect(line.compacted_calls).toEqual([{ call_id: calls[3].call_id, step: calls[3].step, new_chain: true }]);
        expect(line.dropped_calls.map((d: any) => [d.call_id, d.reason])).toEqual(calls.slice(0, 3).map((c: any) => [c.call_id, 'before_compaction']));
        expect(line.dropped_calls[0].detail).toContain('the history policy compacted its input (1 of 3 turns dropped)');
      }
      expect(summary).toContain(`before_compaction ${3 * ROLLOUTS}`);
    },
    300_000,
  );

  it('without a policy sends every turn and keeps one chain from the first call to the last', async () => {
    const { config, records, callsOf, training } = await play({});
    expect(config.historyPolicy).toBeUndefined();
    for (const [i, record] of records.entries()) {
      expect(record._gf_compaction).toBeUndefined();
      const calls = callsOf(record);
      const initial = record.responses_create_params.input.length;
      expect(calls.map((c: any) => c.request.input_items)).toEqual([initial, initial + 2, initial + 4, initial + 6]);
      expect(calls.every((c: any) => c.compaction === undefined)).toBe(true);
      const line = training[i]!;
      expect(line).toMatchObject({ masked: false, chains: 1, compacted_calls: [], dropped_calls: [] });
      expect(line.calls.map((c: any) => c.call_id)).toEqual(record._gf_model_call_ids);
      expect(line.prompt_token_ids).toEqual(returnedTokens(calls[0]).prompt_token_ids);
      const last = returnedTokens(calls[3]);
      expect([...line.prompt_token_ids, ...line.response_token_ids]).toEqual([...last.prompt_token_ids, ...last.generation_token_ids]);
    }
  }, 300_000);
});
