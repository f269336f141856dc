// Rebuilding a rollout's model calls into one training response, on hand-built call chains: plain
// multi-turn, retries of one prompt, branches, compaction (a new root), an ambiguous final call (masked),
// and token metadata that is not a valid bundle.
import { describe, expect, it } from 'vitest';
import { rebuildEpisode, type CallEvidence, type EpisodeOutcome } from '../../src/training/rebuild';
import { callTokens, checkBundle } from '../../src/training/tokens';
import { answerItems, trailingTurnKey, turnKey } from '../../src/training/turns';

let clock = 1_000;
/** A call as the call log would hold it; log-probs are -0.<id digit><position> so each is recognisable. */
function call(id: string, prompt: number[], generation: number[], extra: Partial<CallEvidence> & { logProbs?: number[] } = {}): CallEvidence {
  const { logProbs, ...rest } = extra;
  return {
    call_id: id,
    step: 0,
    attempt: 1,
    started_at: clock++,
    answered: true,
    tokens: callTokens({ tokens: { prompt_token_ids: prompt, generation_token_ids: generation, generation_log_probs: logProbs ?? generation.map((_, i) => -(i + 1) / 10) } }),
    answer_key: '',
    ...rest,
  };
}

function outcome(extra: Partial<EpisodeOutcome> = {}): EpisodeOutcome {
  return { rollout_id: 'r1', task_index: 3, rollout_index: 1, reward: 0.5, kept_call_ids: [], final_turn_key: '', ...extra };
}

describe('rebuildEpisode', () => {
  it('chains a plain multi-turn episode: generations masked 1 with their log-probs, what came between masked 0', () => {
    const calls = [call('a', [1, 2, 3], [10, 11]), call('b', [1, 2, 3, 10, 11, 20, 21], [12]), call('c', [1, 2, 3, 10, 11, 20, 21, 12, 30], [13, 14])];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b', 'c'] }), calls });
    expect(out.masked).toBe(false);
    expect(out.prompt_token_ids).toEqual([1, 2, 3]);
    expect(out.response_token_ids).toEqual([10, 11, 20, 21, 12, 30, 13, 14]);
    expect(out.response_mask).toEqual([1, 1, 0, 0, 1, 0, 1, 1]);
    expect(out.response_log_probs).toEqual([-0.1, -0.2, 0, 0, -0.1, 0, -0.1, -0.2]);
    expect(out.calls.map((c) => [c.call_id, c.interstitial_tokens, c.generation_start, c.generation_tokens])).toEqual([
      ['a', 0, 0, 2],
      ['b', 2, 4, 1],
      ['c', 1, 6, 2],
    ]);
    expect(out.dropped_calls).toEqual([]);
    expect(out).toMatchObject({ _ng_rollout_id: 'r1', _ng_task_index: 3, _ng_rollout_index: 1, reward: 0.5, chains: 1, mask_reason: null });
  });

  it('needs no record of the turns when the calls form one chain', () => {
    const calls = [call('b', [1, 5, 6], [8]), call('a', [1], [5])];
    const out = rebuildEpisode({ outcome: outcome(), calls });
    expect(out.masked).toBe(false);
    expect(out.prompt_token_ids).toEqual([1]);
    expect(out.response_token_ids).toEqual([5, 6, 8]);
    expect(out.response_mask).toEqual([1, 0, 1]);
  });

  it('collapses retries of one prompt to the one on the final path and reports the others', () => {
    const calls = [call('a-lost', [1, 2], [7, 7]), call('a', [1, 2], [10]), call('b-lost', [1, 2, 10, 4], [8]), call('b', [1, 2, 10, 4], [11])];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b'] }), calls });
    expect(out.masked).toBe(false);
    expect(out.response_token_ids).toEqual([10, 4, 11]);
    expect(out.calls.map((c) => c.call_id)).toEqual(['a', 'b']);
    expect(out.dropped_calls).toEqual([
      { call_id: 'a-lost', reason: 'retry', detail: 'same prompt as call a, which the final path keeps' },
      { call_id: 'b-lost', reason: 'retry', detail: 'same prompt as call b, which the final path keeps' },
    ]);
  });

  it('tells retries apart without a record of the turns when only one of them was continued', () => {
    const calls = [call('a-lost', [1, 2], [7]), call('a', [1, 2], [10]), call('b', [1, 2, 10, 4], [11])];
    const out = rebuildEpisode({ outcome: outcome(), calls });
    expect(out.masked).toBe(false);
    expect(out.calls.map((c) => c.call_id)).toEqual(['a', 'b']);
    expect(out.dropped_calls).toEqual([{ call_id: 'a-lost', reason: 'retry', detail: 'same prompt as call a, which the final path keeps' }]);
  });

  it('leaves branches and calls after the final one out of the response, each reported', () => {
    const calls = [call('a', [1], [10]), call('side', [1, 10, 50, 51], [52]), call('b', [1, 10, 4], [11]), call('later', [1, 10, 4, 11, 5], [12])];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b'] }), calls });
    expect(out.response_token_ids).toEqual([10, 4, 11]);
    expect(out.dropped_calls).toEqual([
      { call_id: 'side', reason: 'branch', detail: 'continues call a' },
      { call_id: 'later', reason: 'after_final_call', detail: 'extends the final call b' },
    ]);
  });

  it('starts a new chain where the context was rewritten, and trains on the chain that ends the episode', () => {
    const calls = [call('a', [1, 2], [10]), call('b', [1, 2, 10, 3], [11]), call('c', [1, 99, 3], [12, 13])];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b', 'c'] }), calls });
    expect(out.masked).toBe(false);
    expect(out.chains).toBe(2);
    expect(out.prompt_token_ids).toEqual([1, 99, 3]);
    expect(out.response_token_ids).toEqual([12, 13]);
    expect(out.response_mask).toEqual([1, 1]);
    const detail = 'before call c started a new chain: its prompt does not extend call b, the turn before it';
    expect(out.dropped_calls).toEqual([
      { call_id: 'a', reason: 'other_chain', detail },
      { call_id: 'b', reason: 'other_chain', detail },
    ]);
  });

  it('names the history policy as the reason a compacted call starts a new chain', () => {
    const compaction = { turns: 2, turns_dropped: 1, items_dropped: 2, images_omitted: 0, reasoning_omitted: 0, tokens_before: 30, tokens_after: 20 };
    const calls = [call('a', [1, 2], [10]), call('b', [1, 2, 10, 3], [11]), call('c', [1, 2, 11, 4], [12, 13], { step: 2, compaction })];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b', 'c'] }), calls });
    expect(out.masked).toBe(false);
    expect(out.chains).toBe(2);
    expect(out.prompt_token_ids).toEqual([1, 2, 11, 4]);
    expect(out.response_token_ids).toEqual([12, 13]);
    expect(out.calls.map((c) => c.call_id)).toEqual(['c']);
    expect(out.compacted_calls).toEqual([{ call_id: 'c', step: 2, new_chain: true }]);
    const detail = 'before call c started a new chain: the history policy compacted its input (1 of 2 turns dropped), so it does not extend call b, the turn before it';
    expect(out.dropped_calls).toEqual([
      { call_id: 'a', reason: 'before_compaction', detail },
      { call_id: 'b', reason: 'before_compaction', detail },
    ]);
  });

  it('keeps one chain through a compacted call whose tokens still extend the turn before', () => {
    // What the policy left out never reached the prompt (a template that drops old reasoning anyway).
    const compaction = { turns: 1, turns_dropped: 0, items_dropped: 1, images_omitted: 0, reasoning_omitted: 1, tokens_before: 9, tokens_after: 5 };
    const calls = [call('a', [1], [10]), call('b', [1, 10, 3], [11], { step: 1, compaction })];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b'] }), calls });
    expect(out).toMatchObject({ masked: false, chains: 1, prompt_token_ids: [1], response_token_ids: [10, 3, 11], dropped_calls: [] });
    expect(out.compacted_calls).toEqual([{ call_id: 'b', step: 1, new_chain: false }]);
  });

  it('masks the rollout when nothing tells which of two retries of the last prompt was kept', () => {
    const calls = [call('a', [1], [10]), call('b1', [1, 10, 4], [11]), call('b2', [1, 10, 4], [12])];
    const out = rebuildEpisode({ outcome: outcome(), calls });
    expect(out).toMatchObject({ masked: true, mask_reason: 'final_call_ambiguous', prompt_token_ids: [], response_token_ids: [], response_mask: [], response_log_probs: [], calls: [] });
    expect(out.mask_detail).toBe('nothing names the final call and 2 calls end a chain (b1, b2)');
    expect(out.dropped_calls.map((d) => [d.call_id, d.reason])).toEqual([
      ['a', 'unresolved'],
      ['b1', 'unresolved'],
      ['b2', 'unresolved'],
    ]);
  });

  it('masks the rollout when the witnesses of the final call disagree', () => {
    const calls = [call('a', [1], [10]), call('b1', [1, 10, 4], [11]), call('b2', [1, 10, 4], [12], { response_id: 'resp_b2' })];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b1'], response_id: 'resp_b2' }), calls });
    expect(out.masked).toBe(true);
    expect(out.mask_reason).toBe('final_call_ambiguous');
    expect(out.mask_detail).toBe('witnesses disagree on the final call: last turn names b1, response id names b2');
  });

  it('finds the final call by the scored response id, and by the transcript’s last model-authored turn', () => {
    const calls = [call('a', [1], [10]), call('b1', [1, 10, 4], [11], { response_id: 'resp_1' }), call('b2', [1, 10, 4], [12], { response_id: 'resp_2' })];
    expect(rebuildEpisode({ outcome: outcome({ response_id: 'resp_2' }), calls }).response_token_ids).toEqual([10, 4, 12]);

    const answer = { output: [{ type: 'function_call', call_id: 'fc1', name: 'lookup', arguments: '{"b": 1, "a": 2}' }] };
    const other = { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }] };
    const withKeys = [call('a', [1], [10]), call('b1', [1, 10, 4], [11], { answer_key: turnKey(answerItems(other)) }), call('b2', [1, 10, 4], [12], { answer_key: turnKey(answerItems(answer)) })];
    // The transcript re-serialized the arguments and carries the token fields on its items: same turn.
    const transcript = [
      { role: 'user', content: 'q' },
      { type: 'reasoning', summary: [] },
      { type: 'function_call', call_id: 'fc1', name: 'lookup', arguments: '{"a":2,"b":1}', generation_token_ids: [12] },
    ];
    const out = rebuildEpisode({ outcome: outcome({ final_turn_key: trailingTurnKey(transcript) }), calls: withKeys });
    expect(out.masked).toBe(false);
    expect(out.calls.map((c) => c.call_id)).toEqual(['a', 'b2']);
    expect(trailingTurnKey([...transcript, { type: 'function_call_output', call_id: 'fc1', output: 'x' }])).toBe('');
  });

  it('drops failed, judge and empty calls, and links past an empty turn', () => {
    const calls = [
      call('a', [1], [10]),
      { ...call('fail', [1, 10, 4], []), answered: false, tokens: { kind: 'none' as const } },
      call('empty', [1, 10, 4], []),
      call('judge', [7], [8], { role: 'judge' }),
      call('c', [1, 10, 4, 5], [11]),
    ];
    const out = rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'empty', 'c'] }), calls });
    expect(out.masked).toBe(false);
    expect(out.response_token_ids).toEqual([10, 4, 5, 11]);
    expect(out.response_mask).toEqual([1, 0, 0, 1]);
    expect(out.dropped_calls.map((d) => [d.call_id, d.reason])).toEqual([
      ['fail', 'failed_call'],
      ['empty', 'empty_generation'],
      ['judge', 'judge_call'],
    ]);
  });

  it('masks a rollout whose call log is incomplete, unreadable or without token ids', () => {
    const a = call('a', [1], [10]);
    expect(rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'gone'] }), calls: [a] })).toMatchObject({
      masked: true,
      mask_reason: 'call_log_incomplete',
      mask_detail: 'the record names model calls the call log does not hold: gone',
    });
    expect(rebuildEpisode({ outcome: outcome(), calls: [a], unreadable: ['model_calls/x.jsonl line 4: not a model call record'] })).toMatchObject({
      masked: true,
      mask_reason: 'unreadable_call_record',
    });
    expect(
      rebuildEpisode({ outcome: outcome(), calls: [a, { ...a, tokens: callTokens({ tokens: { prompt_token_ids: [1], generation_token_ids: [11], generation_log_probs: [-1] } }) }] }),
    ).toMatchObject({
      masked: true,
      mask_reason: 'unreadable_call_record',
      mask_detail: 'the call log holds two different lines for call a',
    });
    expect(rebuildEpisode({ outcome: outcome(), calls: [a, a] }).masked).toBe(false);
    expect(rebuildEpisode({ outcome: outcome(), calls: [{ ...a, tokens: callTokens({ response: { output: [{ type: 'message' }] } }) }] })).toMatchObject({
      masked: true,
      mask_reason: 'missing_token_ids',
      mask_detail: 'call a was answered without token ids',
    });
    expect(rebuildEpisode({ outcome: outcome(), calls: [] })).toMatchObject({ masked: true, mask_reason: 'no_calls' });
  });

  it('masks a rollout whose token ids and log-probs do not line up, naming the call and the field', () => {
    const calls = [call('a', [1], [10]), call('b', [1, 10, 4], [11, 12], { logProbs: [-0.5] })];
    expect(rebuildEpisode({ outcome: outcome({ kept_call_ids: ['a', 'b'] }), calls })).toMatchObject({
      masked: true,
      mask_reason: 'bad_token_metadata',
      mask_detail: 'call b: tokens has 2 generation_token_ids but 1 generation_log_probs',
    });
  });
});

describe('token bundles', () => {
  const bundle = (extra: Record<string, unknown>) => ({ prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.25], ...extra });

  it('are read from the call’s tokens, else from the one answer item that carries them', () => {
    expect(callTokens({ tokens: bundle({}) })).toEqual({ kind: 'ok', bundle: bundle({}) });
    expect(callTokens({ response: { output: [{ type: 'reasoning' }, { type: 'message', ...bundle({}) }] } })).toEqual({ kind: 'ok', bundle: bundle({}) });
    expect(callTokens({ response: { choices: [{ message: bundle({ role: 'assistant' }) }] } })).toMatchObject({ kind: 'ok', bundle: bundle({}) });
    expect(callTokens({ response: { output: [{ type: 'message' }] } })).toEqual({ kind: 'none' });
    expect(callTokens({ response: { output: [bundle({}), bundle({})] } })).toEqual({ kind: 'bad', detail: 'response.output[0] and response.output[1] both carry token fields' });
  });

  it.each([
    [{ generation_log_probs: undefined }, 'x has prompt_token_ids, generation_token_ids but no generation_log_probs'],
    [{ prompt_token_ids: [1, 2.5] }, 'x.prompt_token_ids[1] is 2.5, not a token id'],
    [{ generation_token_ids: ['3'] }, 'x.generation_token_ids[0] is "3", not a token id'],
    [{ generation_token_ids: [-3] }, 'x.generation_token_ids[0] is -3, not a token id'],
    [{ generation_log_probs: [null] }, 'x.generation_log_probs[0] is null, not a finite log-prob'],
    [{ generation_log_probs: [Number.POSITIVE_INFINITY] }, 'x.generation_log_probs[0] is null, not a finite log-prob'],
    [{ generation_log_probs: [0.5] }, 'x.generation_log_probs[0] is 0.5, not a finite log-prob'],
    [{ generation_token_ids: 'abc' }, 'x.generation_token_ids is not an array'],
    [{ generation_log_probs: [-0.1, -0.2] }, 'x has 1 generation_token_ids but 2 generation_log_probs'],
  ])('are refused when not valid together (%j)', (change, detail) => {
    expect(checkBundle(bundle(change), 'x')).toEqual({ kind: 'bad', detail });
  });
});
