// The check every multi-turn run's training export must pass, whatever backend served it: for each
// rollout, read independently from the call log, the tokens under mask 1 and their log-probs are exactly
// what the backend returned per call, mask-0 log-probs are 0, and the sequence is the final call's own.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

export const callLogLines = (runDir: string) =>
  readdirSync(path.join(runDir, 'model_calls'))
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readJsonl(path.join(runDir, 'model_calls', f)));

/** The token ids the backend returned for a call, read off its log line. */
export const returnedTokens = (call: Record<string, any>) => call.tokens ?? call.response?.output?.findLast((i: any) => i.generation_token_ids);

/** Checks `training` (an export of `runDir`) against the run's records and call log; returns its lines. */
export function expectTrainingMatchesCallLog(runDir: string, training: string): Record<string, any>[] {
  const records = readJsonl(path.join(runDir, 'rollouts.jsonl'));
  const lines = readJsonl(training);
  expect(lines.map((l) => l._ng_rollout_id)).toEqual(records.map((x) => x._ng_rollout_id));
  const calls = callLogLines(runDir);
  for (const [i, line] of lines.entries()) {
    const record = records[i]!;
    expect(line).toMatchObject({ masked: false, mask_reason: null, reward: record.reward, _ng_task_index: record._ng_task_index, _ng_rollout_index: record._ng_rollout_index });
    const kept = record._gf_model_call_ids.map((id: string) => calls.find((c) => c.call_id === id)!);
    expect(line.calls.map((c: any) => c.call_id)).toEqual(record._gf_model_call_ids);
    const generated = kept.flatMap((c: any) => returnedTokens(c).generation_token_ids);
    const logProbs = kept.flatMap((c: any) => returnedTokens(c).generation_log_probs);
    expect(generated.length).toBeGreaterThan(0);
    expect(line.response_mask).toHaveLength(line.response_token_ids.length);
    expect(line.response_log_probs).toHaveLength(line.response_token_ids.length);
    const where = (values: number[], bit: 0 | 1) => values.filter((_, k) => line.response_mask[k] === bit);
    expect(where(line.response_token_ids, 1)).toEqual(generated);
    expect(where(line.response_log_probs, 1)).toEqual(logProbs);
    expect(where(line.response_log_probs, 0).every((x) => x === 0)).toBe(true);
    // The whole sequence is what the final call saw and generated, and each call saw a prefix of it.
    const sequence = [...line.prompt_token_ids, ...line.response_token_ids];
    const last = returnedTokens(kept.at(-1));
    expect(sequence).toEqual([...last.prompt_token_ids, ...last.generation_token_ids]);
    expect(line.prompt_token_ids).toEqual(returnedTokens(kept[0]).prompt_token_ids);
    for (const c of kept) expect(sequence.slice(0, returnedTokens(c).prompt_token_ids.length)).toEqual(returnedTokens(c).prompt_token_ids);
    const others = calls.filter((c) => c.rollout_id === record._ng_rollout_id && !record._gf_model_call_ids.includes(c.call_id));
    expect(line.dropped_calls.map((d: any) => d.call_id).sort()).toEqual(others.map((c) => c.call_id).sort());
  }
  return lines;
}
