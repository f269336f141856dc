// The simple agent's history policies on hand-built histories: the last N turns or tokens, older images
// replaced by a marker, older reasoning left out, the account of what was dropped, and the policy's
// syntax as the flag, an eval file, the trigger API and NeMo Gym's context_history give it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunRequest } from '../../src/api/schemas';
import { runFromRequest } from '../../src/api/run-request';
import { buildRunConfig, EVAL_RUN_FLAG_NAMES } from '../../src/cli/commands/eval-run';
import { configRunFlags } from '../../src/cli/commands/eval-run-config';
import { readConfigFile } from '../../src/cli/config-file';
import { compactHistory, estimateTokens, formatHistoryPolicy, HistoryPolicy, IMAGE_OMITTED, parseHistoryPolicy, type History } from '../../src/agents/history-policy';
import { GymError } from '../../src/errors';
import { agentHistoryPolicy } from '../../src/routing/context-history';
import { resolveConfigRun } from '../../src/routing/from-config';
import type { ConversationItem } from '../../src/schemas/responses';
import { PACKAGE_ROOT } from '../../src/util/paths';

const user = (text: string): ConversationItem => ({ role: 'user', content: text });
const call = (id: string): ConversationItem => ({ type: 'function_call', call_id: id, name: 'look', arguments: '{}' });
const output = (id: string, text: string): ConversationItem => ({ type: 'function_call_output', call_id: id, output: text });
const screenshot = (id: string): ConversationItem => ({
  type: 'function_call_output',
  call_id: id,
  output: [
    { type: 'input_text', text: `shot ${id}` },
    { type: 'input_image', image_url: `data:image/png;base64,${id}` },
  ],
});
const reasoning = (text: string): ConversationItem => ({ type: 'reasoning', summary: [{ type: 'summary_text', text }] });

/** A tool-calling turn: the model's call (after its reasoning, when given) and the tool's output. */
const turn = (id: string, opts: { image?: boolean; thought?: string } = {}): ConversationItem[] => [
  ...(opts.thought ? [reasoning(opts.thought)] : []),
  call(id),
  opts.image ? screenshot(id) : output(id, `result ${id}`),
];

const ids = (items: ConversationItem[]) => items.map((i) => ('call_id' in i ? `${i.type}:${i.call_id}` : i.type === 'reasoning' ? 'reasoning' : `message:${(i as { content: string }).content}`));

describe('compactHistory', () => {
  const initial = [user('task')];

  it('keeps the initial context and the last N turns whole, so no tool call loses its output', () => {
    const history: History = { initial, turns: [turn('a'), turn('b'), turn('c')] };
    const out = compactHistory(history, { last_turns: 2 });
    expect(ids(out.items)).toEqual(['message:task', 'function_call:b', 'function_call_output:b', 'function_call:c', 'function_call_output:c']);
    expect(out.compaction).toMatchObject({ turns: 3, turns_dropped: 1, items_dropped: 2, images_omitted: 0, reasoning_omitted: 0 });
    const tokens = (items: ConversationItem[]) => items.reduce((s, i) => s + estimateTokens(i), 0);
    expect(out.compaction!.tokens_before).toBe(tokens([...initial, ...history.turns.flat()]));
    expect(out.compaction!.tokens_after).toBe(tokens(out.items));
  });

  it('reports no compaction when the policy leaves the history whole', () => {
    const history: History = { initial, turns: [turn('a'), turn('b')] };
    const out = compactHistory(history, { last_turns: 2, keep_images: 1, keep_reasoning: 1 });
    expect(out.compaction).toBeNull();
    expect(out.items).toEqual([...initial, ...history.turns.flat()]);
  });

  it('keeps the newest turns that fit the token budget with the initial context, and always the latest turn', () => {
    // Each turn counts 10 tokens here, the task 5.
    const count = (item: ConversationItem) => (item.type === 'function_call_output' ? 10 : item.type === 'function_call' ? 0 : 5);
    const history: History = { initial, turns: [turn('a'), turn('b'), turn('c'), turn('d')] };
    expect(ids(compactHistory(history, { last_tokens: 25 }, count).items)).toEqual(['message:task', 'function_call:c', 'function_call_output:c', 'function_call:d', 'function_call_output:d']);
    expect(compactHistory(history, { last_tokens: 24 }, count).compaction).toMatchObject({ turns_dropped: 3, tokens_before: 45, tokens_after: 15 });
    // Over budget with the latest turn alone: it is still shown.
    expect(ids(compactHistory(history, { last_tokens: 1 }, count).items)).toEqual(['message:task', 'function_call:d', 'function_call_output:d']);
    expect(compactHistory(history, { last_tokens: 45 }, count).compaction).toBeNull();
    // With a turn limit too, the stricter of the two wins.
    expect(compactHistory(history, { last_tokens: 45, last_turns: 1 }, count).compaction).toMatchObject({ turns_dropped: 3 });
  });

  it('replaces the images of all but the last N observations with a marker, never those of the initial context', () => {
    const first: ConversationItem = {
      role: 'user',
      content: [
        { type: 'input_text', text: 'task' },
        { type: 'input_image', image_url: 'data:image/png;base64,0' },
      ],
    };
    const history: History = { initial: [first], turns: [turn('a', { image: true }), turn('b'), turn('c', { image: true }), turn('d', { image: true })] };
    const out = compactHistory(history, { keep_images: 2 });
    expect(out.items[0]).toBe(first);
    const a = out.items.find((i) => i.type === 'function_call_output' && i.call_id === 'a')!;
    expect(a).toEqual({
      type: 'function_call_output',
      call_id: 'a',
      output: [
        { type: 'input_text', text: 'shot a' },
        { type: 'input_text', text: IMAGE_OMITTED },
      ],
    });
    for (const id of ['c', 'd']) expect(out.items.find((i) => i.type === 'function_call_output' && i.call_id === id)).toEqual(screenshot(id));
    expect(out.compaction).toMatchObject({ turns_dropped: 0, items_dropped: 0, images_omitted: 1, reasoning_omitted: 0 });
    expect(out.compaction!.tokens_before - out.compaction!.tokens_after).toBe(estimateTokens(screenshot('a')) - estimateTokens(a));
    // The history itself is not changed: the record keeps every image.
    expect(history.turns[0]![1]).toEqual(screenshot('a'));
  });

  it('leaves out the reasoning of all but the last N turns that reasoned (0: all of it)', () => {
    const history: History = { initial, turns: [turn('a', { thought: 'one' }), turn('b', { thought: 'two' }), turn('c'), turn('d', { thought: 'four' })] };
    const kept = (policy: HistoryPolicy) =>
      compactHistory(history, policy)
        .items.filter((i) => i.type === 'reasoning')
        .map((i) => (i as { summary: { text: string }[] }).summary[0]!.text);
    expect(kept({ keep_reasoning: 1 })).toEqual(['four']);
    expect(kept({ keep_reasoning: 2 })).toEqual(['two', 'four']);
    expect(kept({ keep_reasoning: 0 })).toEqual([]);
    expect(compactHistory(history, { keep_reasoning: 1 }).compaction).toMatchObject({ turns_dropped: 0, items_dropped: 2, reasoning_omitted: 2 });
    // Reasoning of dropped turns is counted with their items, not again as omitted reasoning.
    expect(compactHistory(history, { keep_reasoning: 1, last_turns: 3 }).compaction).toMatchObject({ turns_dropped: 1, items_dropped: 4, reasoning_omitted: 1 });
  });

  it('estimates only what the model reads: never the token ids an answer carries', () => {
    const answer = { ...call('a'), prompt_token_ids: Array(4000).fill(1), generation_token_ids: [1, 2], generation_log_probs: [0, 0] } as ConversationItem;
    expect(estimateTokens(answer)).toBe(estimateTokens(call('a')));
    expect(estimateTokens(user('12345678'))).toBe(2);
  });
});

describe('parseHistoryPolicy', () => {
  it('reads comma-separated policies, drop-old-* keeping the latest one by default', () => {
    expect(parseHistoryPolicy('last-turns=4', '--history-policy')).toEqual({ last_turns: 4 });
    expect(parseHistoryPolicy('last-tokens=8000, drop-old-images,drop-old-reasoning=0', '--history-policy')).toEqual({ last_tokens: 8000, keep_images: 1, keep_reasoning: 0 });
    expect(parseHistoryPolicy('drop-old-images=3,drop-old-reasoning', '--history-policy')).toEqual({ keep_images: 3, keep_reasoning: 1 });
  });

  it.each([
    ['last-turn=2', '--history-policy: unknown policy "last-turn"; use last-turns=N, last-tokens=N, drop-old-images[=N] or drop-old-reasoning[=N], comma-separated'],
    ['last-turns', '--history-policy: "last-turns" needs a number: last-turns=N'],
    ['last-turns=0', '--history-policy: last-turns must be an integer ≥ 1, got "0"'],
    ['last-tokens=1e3', '--history-policy: last-tokens must be an integer ≥ 1, got "1e3"'],
    ['drop-old-images=0', '--history-policy: drop-old-images must be an integer ≥ 1, got "0"'],
    ['last-turns=2,last-turns=3', '--history-policy: "last-turns" is given twice'],
    ['last-turns=2,', '--history-policy: empty entry in "last-turns=2,"; use last-turns=N, last-tokens=N, drop-old-images[=N] or drop-old-reasoning[=N], comma-separated'],
    ['last-turns=2=3', '--history-policy: "last-turns=2=3" has more than one "="'],
  ])('refuses %s, naming the flag', (text, message) => {
    let error: unknown;
    try {
      parseHistoryPolicy(text, '--history-policy');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GymError);
    expect(error).toMatchObject({ code: 'BAD_FLAG', message });
  });

  it('needs at least one policy in its schema', () => {
    expect(HistoryPolicy.safeParse({}).success).toBe(false);
    expect(HistoryPolicy.safeParse({ last_turns: 2, extra: 1 }).success).toBe(false);
  });
});

describe('--history-policy in gym eval run, eval files and the trigger API', () => {
  const input = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl');
  const output = () => path.join(os.tmpdir(), `history-policy-${process.pid}-${Math.random()}`, 'run');
  const flags = (extra: Record<string, unknown>) => ({ env: 'example_multi_step', model: 'mock', input, output: output(), ...extra });

  it('puts the policy in the run configuration', () => {
    expect(buildRunConfig(flags({ 'history-policy': 'last-turns=2,drop-old-images' })).historyPolicy).toEqual({ last_turns: 2, keep_images: 1 });
    expect(buildRunConfig(flags({})).historyPolicy).toBeUndefined();
  });

  it('refuses a policy it cannot read, and one for an external harness, naming the flag', () => {
    expect(() => buildRunConfig(flags({ 'history-policy': 'last-turns=two' }))).toThrow('--history-policy: last-turns must be an integer ≥ 1, got "two"');
    const swe = path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl');
    expect(() => buildRunConfig(flags({ env: 'swe_repair', agent: 'pi', input: swe, 'history-policy': 'last-turns=2' }))).toThrow(
      '--history-policy does not go with --agent pi: an external harness decides what its model is shown',
    );
  });

  it('reads history_policy from an eval file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'history-policy-file-'));
    const file = path.join(dir, 'eval.yaml');
    await writeFile(file, `env: example_multi_step\nmodel: mock\ninput: ${input}\noutput: ${path.join(dir, 'run')}\nhistory_policy: last-tokens=4000\n`);
    expect(buildRunConfig(readConfigFile(file, EVAL_RUN_FLAG_NAMES)).historyPolicy).toEqual({ last_tokens: 4000 });
  });

  it('takes history_policy in a trigger API request, and names that field when it is wrong', async () => {
    const runsDir = await mkdtemp(path.join(os.tmpdir(), 'history-policy-api-'));
    const policy = { runsDir, taskQueue: 'q', allowedSecretEnv: new Set<string>() };
    const request = (history_policy: string) => RunRequest.parse({ env: 'example_multi_step', model: 'mock', input, history_policy });
    expect((await runFromRequest(request('drop-old-reasoning=0'), undefined, policy, () => {})).config.historyPolicy).toEqual({ keep_reasoning: 0 });
    await expect(runFromRequest(request('last-turns=0'), undefined, policy, () => {})).rejects.toThrow(
      expect.objectContaining({ field: 'history_policy', message: 'history_policy: last-turns must be an integer ≥ 1, got "0"' }),
    );
  });
});

describe("NeMo Gym's context_history", () => {
  const recency = (config: unknown, extra: Record<string, unknown> = {}) => ({ enabled: true, policy: { type: 'recency', config }, ...extra });

  it('reads the recency policy of simple_agent_with_compaction, and identity or disabled as the whole history', () => {
    expect(agentHistoryPolicy('a', recency({ images: { enabled: true, keep_last_groups: 2 }, reasoning: { enabled: true, keep_last_blocks: 0 } }))).toEqual({
      policy: { keep_images: 2, keep_reasoning: 0 },
      problems: [],
    });
    // NeMo Gym's defaults, and a zero window that still shows the pending observation.
    expect(agentHistoryPolicy('a', recency({ images: { enabled: true }, reasoning: { enabled: true } })).policy).toEqual({ keep_images: 3, keep_reasoning: 3 });
    expect(agentHistoryPolicy('a', recency({ images: { enabled: true, keep_last_groups: 0 } })).policy).toEqual({ keep_images: 1 });
    expect(agentHistoryPolicy('a', { enabled: true })).toEqual({ problems: [] });
    expect(agentHistoryPolicy('a', { enabled: false, policy: { type: 'recency' } })).toEqual({ problems: [] });
    expect(agentHistoryPolicy('a', undefined)).toEqual({ problems: [] });
  });

  it('refuses by name what Gymflow does not do', () => {
    expect(
      agentHistoryPolicy(
        'a',
        recency({ reasoning: { enabled: true, keep_first_block: true } }, { schedule: { type: 'turn_chunked_recency', actions_per_chunk: 4 }, guards: { max_total_tokens: 9000 } }),
      ).problems,
    ).toEqual([
      'agent "a": context_history.schedule.type: Gymflow compacts before every call (rolling_recency), not "turn_chunked_recency"',
      'agent "a": context_history.guards: Gymflow has no admission guards (max_total_tokens); bound the prompt with --history-policy last-tokens=N instead',
      'agent "a": context_history.policy.config.reasoning.keep_first_block: Gymflow keeps only the last blocks',
    ]);
    expect(agentHistoryPolicy('a', { enabled: true, policy: { type: 'summarize' } }).problems).toEqual([
      'agent "a": context_history.policy.type: "summarize" is not a policy Gymflow has (identity, recency); see docs/agents.md',
    ]);
    expect(agentHistoryPolicy('a', recency({ images: { enabled: true, keep_last_group: 2 } })).problems).toEqual([
      'agent "a": context_history.policy.config.images: Unrecognized key: "keep_last_group"',
    ]);
    expect(agentHistoryPolicy('a', recency({})).problems).toEqual(['agent "a": context_history.policy.config: the recency policy needs images.enabled or reasoning.enabled']);
  });

  it("becomes the run's --history-policy when gym eval run reads the configuration", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'history-policy-nemo-'));
    const agent = 'example_multi_step_simple_agent.responses_api_agents.simple_agent';
    const run = await resolveConfigRun({
      files: [path.resolve(import.meta.dirname, '../fixtures/routing/three-environments.yaml')],
      overrides: [`++${agent}.context_history={enabled: true, policy: {type: recency, config: {reasoning: {enabled: true, keep_last_blocks: 2}}}}`],
      envYaml: '/dev/null',
      input: path.resolve(import.meta.dirname, '../fixtures/nemo-gym/example_multi_step/example.jsonl'),
      agent: 'example_multi_step_simple_agent',
      cwd: PACKAGE_ROOT,
      env: {},
    });
    expect(run.historyPolicy).toEqual({ keep_reasoning: 2 });
    const flags = configRunFlags(run);
    expect(flags['history-policy']).toBe('drop-old-reasoning=2');
    expect(buildRunConfig({ ...flags, env: undefined, model: 'mock', output: path.join(dir, 'run') }, () => {}, { env: run.environments[0]!, environments: run.environments }).historyPolicy).toEqual({
      keep_reasoning: 2,
    });
  });

  it('round-trips the flag syntax', () => {
    for (const policy of [{ last_turns: 3 }, { last_tokens: 500, keep_images: 2, keep_reasoning: 0 }] as HistoryPolicy[]) {
      expect(parseHistoryPolicy(formatHistoryPolicy(policy), 'x')).toEqual(policy);
    }
  });
});
