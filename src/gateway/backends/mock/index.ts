// The deterministic mock policy: it recognises the task a request belongs to, then replays a recorded
// rollout or plays the environment's oracle (oracles.ts), answering with real token ids. Same spec, task, rollout
// id and history → same answer, so tests, demos and benchmarks are reproducible.
import { setTimeout as sleep } from 'node:timers/promises';
import { envKey } from '../../../environments/ref';
import { getEnvironment, resolveEnvironment } from '../../../environments/registry';
import { rowEnvRef } from '../../../routing/row';
import type { AnyEnvironment } from '../../../environments/types';
import { inputItems, type ConversationItem, type ResponseObject } from '../../../schemas/responses';
import { TaskRow } from '../../../schemas/task';
import { hash32, seededRng, type Rng } from '../../../util/rng';
import { CanonicalPrefix } from '../../canonical';
import { chatRequestToResponses, randomId, responseToChatCompletion, trainingTokensOf } from '../../convert';
import type { MockModelSpec } from '../../spec';
import { turnTokens } from '../../tokens';
import type { ResponsesRequest } from '../../wire';
import type { Backend, CallContext } from '../backend';
import { FileCache, InputIndex, itemText, parseJsonl, PromptIndex, type PrefixMatch } from './inputs';
import { oracleFor } from './oracles';
import { RecordedRollout, replayTurn } from './replay';

/** Task and recording indexes, shared by every mock model of one gateway. */
export interface MockFiles {
  tasks: FileCache<InputIndex<TaskRow>>;
  /** The same task files by prompt, for harness-played environments. */
  prompts: FileCache<PromptIndex<TaskRow>>;
  recordings: FileCache<InputIndex<RecordedRollout>>;
}

export function mockFiles(): MockFiles {
  return {
    tasks: new FileCache((text, path) => new InputIndex(parseJsonl(text, path, TaskRow).map((row) => ({ input: row.responses_create_params.input, row })))),
    prompts: new FileCache((text, path) => new PromptIndex(parseJsonl(text, path, TaskRow).map((row) => ({ input: row.responses_create_params.input, row })))),
    recordings: new FileCache((text, path) => new InputIndex(parseJsonl(text, path, RecordedRollout).map((row) => ({ input: row.responses_create_params.input, row })))),
  };
}

interface Turn {
  output: ConversationItem[];
  /** Seeds everything derived from this turn: item ids and log-probs. */
  seed: string;
  source: 'replay' | 'oracle' | 'fallback';
}

const ID_PREFIX: Record<string, string> = { function_call: 'fc', reasoning: 'rs', message: 'msg' };

function hexId(rng: Rng): string {
  return Array.from({ length: 3 }, () =>
    rng
      .int(2 ** 32)
      .toString(16)
      .padStart(8, '0'),
  ).join('');
}

function withIds(output: ConversationItem[], seed: string): ConversationItem[] {
  const rng = seededRng(`${seed}:ids`);
  return output.map((item) => (item.id ? item : { ...item, id: `${ID_PREFIX[item.type ?? 'message'] ?? 'item'}_${hexId(rng)}` }));
}

/** A message's or tool output's content made only of text parts, as the one string they spell. */
function plainTextContent(item: ConversationItem): ConversationItem {
  const textOf = (parts: unknown): string | undefined =>
    Array.isArray(parts) &&
    parts.length > 0 &&
    parts.every((p) => ['input_text', 'output_text', 'text'].includes((p as { type?: unknown })?.type as string) && typeof (p as { text?: unknown }).text === 'string')
      ? parts.map((p) => (p as { text: string }).text).join('')
      : undefined;
  const record = item as Record<string, unknown>;
  if (item.type === 'function_call_output') {
    const text = textOf(record.output);
    return text === undefined ? item : ({ ...item, output: text } as ConversationItem);
  }
  if ('role' in item && (item.type === undefined || item.type === 'message') && record.role !== 'assistant') {
    const text = textOf(record.content);
    return text === undefined ? item : ({ ...item, content: text } as ConversationItem);
  }
  return item;
}

function plainMessage(text: string): ConversationItem {
  return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

export function mockBackend(spec: MockModelSpec, files: MockFiles): Backend {
  // Looked up at registration, so a misspelt environment fails there rather than on the first call.
  const runEnv: AnyEnvironment = getEnvironment(spec.env);
  const runOracle = oracleFor(spec.env);
  const environmentOf = (row: TaskRow) => {
    const ref = rowEnvRef(row);
    return ref ? { env: resolveEnvironment(ref), oracle: oracleFor(envKey(ref)) } : { env: runEnv, oracle: runOracle };
  };
  // Every call of a rollout matches the same row of the cached task file: validated once per row, not per
  // call (a reloaded file brings new row objects). Oracles only read the task they are given.
  const parsedRows = new WeakMap<TaskRow, ReturnType<AnyEnvironment['taskSchema']['safeParse']>>();
  const parsedTask = (row: TaskRow, env: AnyEnvironment) => {
    let parsed = parsedRows.get(row);
    if (!parsed) parsedRows.set(row, (parsed = env.taskSchema.safeParse(row)));
    return parsed;
  };

  async function longestRecordingMatch(items: CanonicalPrefix): Promise<PrefixMatch<RecordedRollout> | undefined> {
    let best: PrefixMatch<RecordedRollout> | undefined;
    for (const file of spec.replay_files) {
      const match = (await files.recordings.get(file)).match(items);
      if (!match || (best && match.length < best.length)) continue;
      best = best && match.length === best.length ? { ...best, rows: [...best.rows, ...match.rows] } : match;
    }
    return best;
  }

  function oracleTurn(task: PrefixMatch<TaskRow> | undefined, request: ResponsesRequest, items: ConversationItem[], correct: boolean, seed: string, ctx: CallContext): ConversationItem[] {
    const skip = (reason: string) => {
      ctx.log.warn({ env: spec.env }, `mock: ${reason}; answering with a plain message`);
      return [];
    };
    if (!task) return skip('no task row matches this conversation, so there is no oracle to play');
    // A routed run's rows each name their environment; the mock plays that one's oracle.
    const { env, oracle } = environmentOf(task.rows[0]!);
    if (!oracle) return skip('the environment has no oracle');
    const parsed = parsedTask(task.rows[0]!, env);
    if (!parsed.success) return skip(`the matched task row does not fit the environment (${parsed.error.issues[0]?.message})`);
    const prompt = task.length > 0 ? itemText(items[task.length - 1]) : '';
    return oracle.play(parsed.data, items.slice(task.length), { correct, rng: seededRng(seed), settings: oracle.settings, tools: request.tools ?? [], prompt });
  }

  async function nextTurn(request: ResponsesRequest, ctx: CallContext): Promise<Turn> {
    let items = inputItems(request.input);
    let keys = new CanonicalPrefix(items);
    const recording = spec.replay_files.length > 0 ? await longestRecordingMatch(keys) : undefined;
    let task = spec.tasks_file ? (await files.tasks.get(spec.tasks_file)).match(keys) : undefined;
    // An SDK agent (Strands) sends every message's and tool result's text as a list of text parts, the same
    // conversation a task row spells with strings: read that way, its task is found and its oracle plays on.
    if (!task && !recording && spec.tasks_file) {
      const plain = items.map(plainTextContent);
      const found = (await files.tasks.get(spec.tasks_file)).match(new CanonicalPrefix(plain));
      if (found) [task, items, keys] = [found, plain, new CanonicalPrefix(plain)];
    }
    // A harness's conversation starts with its own system prompt, so its task is found by prompt instead:
    // a task of a sandboxed environment (the run's, or the one a routed row names), or a text task whose
    // routed row says a harness plays it, or whose harness folder the environment seeds (pinchbench).
    if (!task && spec.tasks_file) {
      const byPrompt = (await files.prompts.get(spec.tasks_file)).match(items);
      const row = byPrompt?.rows[0];
      const rowEnv = row ? environmentOf(row).env : undefined;
      if (byPrompt && row && (rowEnv!.sandboxed || rowEnv!.workspaceFiles || rowEnvRef(row)?.harness)) task = byPrompt;
    }
    const match = recording ?? task;
    if (!match) {
      ctx.log.warn({ env: spec.env, tasks_file: spec.tasks_file, replay_files: spec.replay_files }, 'mock: no task matches the request input; answering with a plain message');
      return {
        output: [plainMessage(`The mock model found no ${spec.env} task whose input starts this conversation.`)],
        seed: `${spec.seed}:${hash32(keys.key(keys.length).slice(1, -1))}:${ctx.rolloutId ?? ''}`,
        source: 'fallback',
      };
    }
    // One draw per rollout (not per step), so a rollout is either played right or wrong throughout.
    const rolloutSeed = `${spec.seed}:${hash32(match.inputKey)}:${ctx.rolloutId ?? ''}`;
    const rolloutRng = seededRng(rolloutSeed);
    const correct = rolloutRng.next() < spec.accuracy;
    const seed = `${rolloutSeed}:${items.length - match.length}`;

    if (recording) {
      const recorded = rolloutRng.pick(recording.rows);
      const output = replayTurn(recorded.response.output, items.length - recording.length);
      if (output.length > 0) return { output, seed, source: 'replay' };
      ctx.log.warn({ env: spec.env }, 'mock: the recorded rollout has no turn left');
    }
    const output = oracleTurn(task, request, items, correct, seed, ctx);
    if (output.length > 0) return { output, seed, source: 'oracle' };
    return { output: [plainMessage(`The mock model has no move for this ${spec.env} conversation.`)], seed, source: 'fallback' };
  }

  async function responses(request: ResponsesRequest, ctx: CallContext): Promise<ResponseObject> {
    if (spec.latency_ms > 0) await sleep(spec.latency_ms, undefined, { signal: ctx.signal });
    const turn = await nextTurn(request, ctx);
    const output = withIds(turn.output, turn.seed);
    const last = output[output.length - 1]!;
    // A recorded turn that already carries a model's real token ids keeps them.
    const recorded = trainingTokensOf(last);
    const encoded = recorded ? undefined : await turnTokens(request, output, turn.seed);
    const tokens = recorded ?? encoded!.ids;
    output[output.length - 1] = { ...last, ...tokens };
    ctx.log.debug({ source: turn.source, items: output.length }, 'mock: turn');
    const inputTokens = tokens.prompt_token_ids.length;
    const outputTokens = tokens.generation_token_ids.length;
    const longWordsSplit = encoded?.longWordsSplit ?? 0;
    return {
      id: randomId('resp'),
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model: ctx.model,
      status: 'completed',
      output,
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
        // Counts match the ids returned; when a giant word was encoded in slices, usage says so.
        input_tokens_details: { cached_tokens: 0, ...(longWordsSplit > 0 ? { long_words_split: longWordsSplit } : {}) },
        output_tokens_details: { reasoning_tokens: 0 },
      },
      incomplete_details: null,
      // Fields OpenAI's Response type requires, so strict clients (NeMo Gym's pydantic models) accept it.
      error: null,
      instructions: request.instructions ?? null,
      tools: request.tools ?? [],
      tool_choice: request.tool_choice ?? 'auto',
      parallel_tool_calls: request.parallel_tool_calls ?? true,
    };
  }

  return {
    kind: 'mock',
    responses,
    chatCompletions: async (request, ctx) => responseToChatCompletion(await responses(chatRequestToResponses(request), ctx)),
  };
}
