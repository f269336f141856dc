// vLLM's OpenAI server as a policy for training: every call asks for the sampled tokens as ids with
// their log-probs (`logprobs`, `top_logprobs: 0`, `return_tokens_as_token_ids`) and for the prompt's ids
// (`return_token_ids`), and the answer carries exactly those — never re-tokenized. Only an older vLLM
// that sends no prompt ids is asked `/tokenize`. Responses callers are served through the conversion.
import { chatCompletionToResponse, responsesToChatRequest, type TrainingTokenIds } from '../convert';
import { GatewayError } from '../errors';
import type { VLLMModelSpec } from '../spec';
import { ChatCompletion, type ChatCompletionRequest } from '../wire';
import type { Backend, CallContext } from './backend';
import { validUpstreamReply } from './backend';
import { streamChat } from './chat-chunks';
import { createUpstream, upstreamPlacement, type Upstream } from './upstream';

const TOKEN_FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'] as const;
/** Request fields that shape the prompt: /tokenize must see the same ones to give the same ids. */
const PROMPT_FIELDS = ['messages', 'tools', 'chat_template', 'chat_template_kwargs', 'mm_processor_kwargs', 'add_generation_prompt', 'continue_final_message', 'add_special_tokens'] as const;

/** What the caller's chat request becomes upstream: token capture switched on, earlier turns' ids left behind. */
export function vllmChatBody(request: object, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model };
  if (body.n != null && body.n !== 1) {
    throw new GatewayError(400, 'invalid_request_error', 'unsupported_parameter', 'n: the vllm backend captures the tokens of one choice per call; send n = 1', 'n');
  }
  // Earlier turns' token ids ride along in the conversation for the trainer; vLLM renders the prompt from
  // the messages, so they would only make the request bigger.
  body.messages = (body.messages as Record<string, unknown>[]).map((message) => {
    if (!TOKEN_FIELDS.some((f) => f in message)) return message;
    const { prompt_token_ids: _p, generation_token_ids: _g, generation_log_probs: _l, ...rest } = message;
    return rest;
  });
  // top_logprobs pinned to 0: vLLM returns log-probs only when it is a number, and capture needs just the chosen token's.
  return { ...body, logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true };
}

function invalid(what: string): GatewayError {
  return new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `vLLM ${what}`);
}

function idList(value: unknown, field: string): number[] {
  if (!Array.isArray(value) || !value.every((x) => Number.isInteger(x))) throw invalid(`returned ${field} that is not a list of integer token ids`);
  return value as number[];
}

/** Ids and log-probs of the sampled tokens, from `logprobs.content[].token` = "token_id:<id>". */
export function logprobTokens(logprobs: unknown): { ids: number[]; logProbs: number[] } {
  const content = (logprobs as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) {
    throw invalid('answered without choices[0].logprobs.content although logprobs were requested (logprobs: true, top_logprobs: 0); is the server a vLLM OpenAI server?');
  }
  const ids: number[] = [];
  const logProbs: number[] = [];
  content.forEach((entry: { token?: unknown; logprob?: unknown }, i) => {
    const token = entry?.token;
    const id = typeof token === 'string' && /^token_id:-?\d+$/.test(token) ? Number(token.slice('token_id:'.length)) : undefined;
    if (id === undefined) throw invalid(`returned choices[0].logprobs.content[${i}].token = ${JSON.stringify(token)}, not "token_id:<id>" (return_tokens_as_token_ids was requested)`);
    if (typeof entry.logprob !== 'number' || !Number.isFinite(entry.logprob)) throw invalid(`returned choices[0].logprobs.content[${i}].logprob that is not a finite number`);
    ids.push(id);
    logProbs.push(entry.logprob);
  });
  return { ids, logProbs };
}

/** A raw vLLM chat completion, its token data moved onto the message as NeMo Gym's ForTraining bundle. */
export async function withTrainingTokens(raw: Record<string, any>, tokenize: () => Promise<number[]>): Promise<Record<string, any>> {
  const { prompt_token_ids: promptIds, ...completion } = raw;
  const [first, ...others] = (completion.choices ?? []) as Record<string, any>[];
  if (!first) throw invalid('answered without choices');
  if (others.length > 0) throw invalid(`answered ${others.length + 1} choices to a request for one`);
  const { logprobs, token_ids: generationIds, ...choice } = first;
  const { ids, logProbs } = logprobTokens(logprobs);
  if (generationIds != null && idList(generationIds, 'choices[0].token_ids').join(',') !== ids.join(',')) {
    throw invalid('returned choices[0].token_ids that disagree with the token ids of choices[0].logprobs');
  }
  const tokens: TrainingTokenIds = {
    prompt_token_ids: promptIds != null ? idList(promptIds, 'prompt_token_ids') : await tokenize(),
    generation_token_ids: ids,
    generation_log_probs: logProbs,
  };
  return { ...completion, choices: [{ ...choice, message: { ...choice.message, ...tokens } }] };
}

/** vLLM's /tokenize lives beside /v1, not under it. */
function tokenizeUrl(base: string): string {
  return `${base.replace(/\/v1$/, '')}/tokenize`;
}

async function promptIdsFromTokenize(upstream: Upstream, body: Record<string, unknown>, ctx: CallContext): Promise<number[]> {
  const request: Record<string, unknown> = { model: body.model, add_generation_prompt: true };
  for (const field of PROMPT_FIELDS) if (body[field] !== undefined) request[field] = body[field];
  const reply = (await upstream.postJson(tokenizeUrl, request, { signal: ctx.signal, session: ctx.session })) as { tokens?: unknown };
  return idList(reply?.tokens, '/tokenize tokens');
}

export function vllmBackend(spec: VLLMModelSpec): Backend {
  const { replicas, rotation, timeouts } = upstreamPlacement(spec, undefined);
  const label = `vLLM ${spec.model} at ${replicas.current.join(', ') || spec.endpoint_file}`;
  const key = () => (spec.api_key_env ? process.env[spec.api_key_env] : undefined);
  const upstream = createUpstream({
    label,
    replicas,
    rotation,
    timeouts,
    headers: (): Record<string, string> => {
      const apiKey = key();
      if (spec.api_key_env && !apiKey) {
        throw new GatewayError(500, 'server_error', 'missing_api_key', `environment variable ${spec.api_key_env} is not set where the gateway runs; set it to the vLLM server's --api-key`);
      }
      return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    },
    secret: key,
  });

  async function chat(request: object, ctx: CallContext): Promise<ChatCompletion> {
    const body = vllmChatBody(request, spec.model);
    const call = { signal: ctx.signal, session: ctx.session };
    // A streaming caller gets vLLM's chunks as they come, unless the spec says to ask for whole answers.
    const raw =
      (spec.stream_upstream ?? Boolean(ctx.onDelta))
        ? await streamChat(upstream, '/chat/completions', body, ctx, call, label)
        : validUpstreamReply(ChatCompletion, await upstream.postJson('/chat/completions', { ...body, stream: false }, call), label, 'chat completion');
    const completion = await withTrainingTokens(raw, () => promptIdsFromTokenize(upstream, body, ctx));
    return validUpstreamReply(ChatCompletion, completion, label, 'chat completion');
  }

  return {
    kind: 'vllm',
    responses: async (request, ctx) => chatCompletionToResponse(await chat(responsesToChatRequest(request), ctx), { params: request }),
    chatCompletions: (request: ChatCompletionRequest, ctx) => chat(request, ctx),
    close: () => upstream.close(),
  };
}
