// What the health checks keep of each model call and rollout record: a few numbers and flags, so a
// 100k-rollout run is checked without holding its responses in memory.
import { z } from 'zod';
import { RolloutRecord, type ModelCallRecord } from '../schemas/records';
import { ResponseObject } from '../schemas/responses';

/**
 * The part of a rollout record the checks read. Validating whole records (every token id of every
 * item) would cost most of a 100k-rollout check; the items' other fields are not read.
 */
export const RecordEvidence = RolloutRecord.pick({ _ng_task_index: true, _ng_rollout_index: true, _ng_rollout_id: true, _gf_model_call_ids: true }).extend({
  response: ResponseObject.pick({ usage: true, status: true }).extend({ output: z.array(z.looseObject({ type: z.string().optional(), role: z.string().optional() })) }),
});
export type RecordEvidence = z.infer<typeof RecordEvidence>;

export interface CallDigest {
  callId: string;
  rolloutId: string;
  model: string | null;
  step: number;
  attempt: number;
  /** ms since the epoch; null in logs written before start times were kept. */
  startedAt: number | null;
  status: number | null;
  errorCode: string | null;
  failed: boolean;
  hasResponse: boolean;
  responseStatus: string | null;
  finishReason: string | null;
  lengthFinish: boolean;
  /** Usage as the call reported it (null when absent). */
  tokensIn: number | null;
  tokensOut: number | null;
  /** Counts of the token ids captured on the call's output items (null when it carries none). */
  idsIn: number | null;
  idsOut: number | null;
  /** Any text the model produced: a message, a refusal, reasoning (a tool call alone is not text). */
  hasContent: boolean;
  /** No text and no tool call: an agent turn that did nothing. */
  hollow: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const nonBlank = (x: unknown) => typeof x === 'string' && x.trim() !== '';
const count = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null);

const LENGTH_FINISH = new Set(['length', 'max_output_tokens', 'max_tokens']);

/** A generation cut off by its length limit: the reason says so, or the status is incomplete without a reason. */
export function isLengthFinish(status: string | null, reason: string | null): boolean {
  return reason !== null ? LENGTH_FINISH.has(reason) : status === 'incomplete';
}

const FAILED_RESPONSE = new Set(['failed', 'error', 'cancelled']);
const TOOL_CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'mcp_call', 'computer_call', 'code_interpreter_call', 'local_shell_call', 'web_search_call', 'file_search_call']);

function partHasText(part: unknown): boolean {
  if (typeof part === 'string') return nonBlank(part);
  return isObj(part) && (nonBlank(part.text) || nonBlank(part.refusal));
}

function itemHasText(item: Obj): boolean {
  if (item.type === 'reasoning') {
    return nonBlank(item.encrypted_content) || [item.summary, item.content].some((parts) => Array.isArray(parts) && parts.some(partHasText));
  }
  if (item.type === undefined || item.type === 'message') {
    if (item.role !== 'assistant') return false;
    return typeof item.content === 'string' ? nonBlank(item.content) : Array.isArray(item.content) && item.content.some(partHasText);
  }
  return false;
}

/** Token ids on a turn's output items: the prompt of the first item that carries them, every generation summed. */
function tokenIds(output: Obj[]): { idsIn: number | null; idsOut: number | null } {
  let idsIn: number | null = null;
  let idsOut: number | null = null;
  for (const item of output) {
    if (idsIn === null && Array.isArray(item.prompt_token_ids)) idsIn = item.prompt_token_ids.length;
    if (Array.isArray(item.generation_token_ids)) idsOut = (idsOut ?? 0) + item.generation_token_ids.length;
  }
  return { idsIn, idsOut };
}

export function digestCall(call: ModelCallRecord): CallDigest {
  const response = isObj(call.response) ? call.response : undefined;
  const output = Array.isArray(response?.output) ? response.output.filter(isObj) : [];
  const usage = isObj(response?.usage) ? response.usage : undefined;
  const details = isObj(response?.incomplete_details) ? response.incomplete_details : undefined;
  const responseStatus = typeof response?.status === 'string' ? response.status : null;
  const finishReason = typeof details?.reason === 'string' ? details.reason : null;
  const status = call.status ?? (response ? 200 : null);
  const hasContent = output.some(itemHasText);
  const hasToolCall = output.some((i) => TOOL_CALL_TYPES.has(String(i.type)));
  return {
    callId: call.call_id,
    rolloutId: call.rollout_id,
    model: call.model ?? null,
    step: call.step,
    attempt: call.attempt,
    startedAt: call.started_at ?? null,
    status,
    errorCode: call.error?.code ?? (call.error ? 'error' : null),
    failed: (status !== null && status >= 400) || !!call.error || (responseStatus !== null && FAILED_RESPONSE.has(responseStatus)),
    hasResponse: !!response,
    responseStatus,
    finishReason,
    lengthFinish: !!response && isLengthFinish(responseStatus, finishReason),
    tokensIn: count(usage?.input_tokens ?? usage?.prompt_tokens),
    tokensOut: count(usage?.output_tokens ?? usage?.completion_tokens),
    ...tokenIds(output),
    hasContent,
    hollow: !hasContent && !hasToolCall,
  };
}

/** What a record says about its own episode. */
export function digestRecord(record: RecordEvidence): { refs: string[]; usage?: { input: number | null; output: number | null }; hasModelItems: boolean } {
  const usage = record.response.usage;
  return {
    refs: record._gf_model_call_ids,
    usage: usage ? { input: count(usage.input_tokens), output: count(usage.output_tokens) } : undefined,
    hasModelItems: record.response.output.some(
      (item) => item.type === 'function_call' || item.type === 'reasoning' || ((item.type === undefined || item.type === 'message') && item.role === 'assistant'),
    ),
  };
}
