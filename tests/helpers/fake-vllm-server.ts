// A FAKE vLLM OpenAI server for tests (no GPU here): a real node:http server on 127.0.0.1 speaking
// vLLM's wire format for token capture — `logprobs.content[].token` = "token_id:<id>" under
// `return_tokens_as_token_ids`, top-level `prompt_token_ids` and `choices[].token_ids` under
// `return_token_ids` (streamed: prompt ids on the first chunk, ids per delta), `POST /tokenize` beside
// /v1 — with a byte-level "tokenizer", so every id it sends is known to the test that reads `sent`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  content?: string;
  /** vLLM's reasoning-parser output (the `reasoning` field of vLLM ≥ 0.16). */
  reasoning?: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
}

export interface SentGeneration {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

export interface FakeVLLM {
  /** Base URL with /v1, as vLLM is configured. */
  url: string;
  requests: { path: string; body: any; headers: Record<string, string | string[] | undefined> }[];
  /** What each answered generation carried, in order: the ids a test expects back. */
  sent: SentGeneration[];
  /** Replies to give, in order; when none is left the fake answers "ok". */
  script(...replies: ScriptedReply[]): void;
  /** Behave like a vLLM older than 0.10.2: no prompt ids or choice token ids, whatever is asked. */
  withoutReturnTokenIds(): void;
  /** Send logprob tokens as text (as if return_tokens_as_token_ids were ignored). */
  textTokens(): void;
  close(): Promise<void>;
}

/** ChatML's end of turn is one special token, as in a real tokenizer: the id a generation ends with is the one a re-rendered turn has. */
const EOS = 2;
const SPECIAL: Record<string, number> = { '<|im_start|>': 1, '<|im_end|>': EOS };
const idsOf = (text: string) => text.split(/(<\|im_start\|>|<\|im_end\|>)/).flatMap((part) => (part in SPECIAL ? [SPECIAL[part]!] : [...Buffer.from(part, 'utf8')].map((b) => b + 3)));
const logProbOf = (id: number, at: number) => -((id * 31 + at * 7) % 97) / 100 - 0.001;

/** The fake's chat template: a ChatML rendering, prompt ending in the assistant header. */
export function fakeRender(body: { messages: any[]; tools?: any[] }): string {
  const text = (c: unknown) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? `<${p.type}>`).join('') : '');
  const tools = body.tools?.length ? `<|im_start|>tools\n${JSON.stringify(body.tools)}<|im_end|>\n` : '';
  const calls = (m: any) => (m.tool_calls ?? []).map((c: any) => `<tool_call>${c.function.name}(${c.function.arguments})</tool_call>`).join('');
  return `${tools}${body.messages.map((m) => `<|im_start|>${m.role}\n${text(m.content)}${calls(m)}<|im_end|>\n`).join('')}<|im_start|>assistant\n`;
}

export interface FakeVLLMOptions {
  /** Where it listens (default a free port on 127.0.0.1), as `vllm serve --host --port` would. */
  host?: string;
  port?: number;
  /** Each generation is answered after this long, so a test can catch a run mid-way. */
  latencyMs?: number;
}

export async function startFakeVLLM(opts: FakeVLLMOptions = {}): Promise<FakeVLLM> {
  const requests: FakeVLLM['requests'] = [];
  const sent: SentGeneration[] = [];
  const queue: ScriptedReply[] = [];
  let returnTokenIds = true;
  let tokenIdStrings = true;

  function generate(body: any) {
    const reply = queue.shift() ?? { content: 'ok' };
    const calls = reply.tool_calls ?? [];
    const generated = `${reply.reasoning ? `<think>${reply.reasoning}</think>` : ''}${reply.content ?? ''}${calls.map((c) => `<tool_call>${c.name}(${c.arguments})</tool_call>`).join('')}`;
    const max = body.max_completion_tokens ?? body.max_tokens;
    let ids = [...idsOf(generated), EOS];
    const truncated = typeof max === 'number' && ids.length > max;
    if (truncated) ids = ids.slice(0, max);
    const promptIds = idsOf(fakeRender(body));
    const logProbs = ids.map(logProbOf);
    const wantsLogprobs = body.logprobs === true && typeof body.top_logprobs === 'number';
    const withIds = returnTokenIds && body.return_token_ids === true;
    const asIds = tokenIdStrings && body.return_tokens_as_token_ids === true;
    if (wantsLogprobs) sent.push({ prompt_token_ids: withIds ? promptIds : idsOf(fakeRender(body)), generation_token_ids: ids, generation_log_probs: logProbs });
    const entry = (id: number, at: number) => ({ token: asIds ? `token_id:${id}` : String.fromCharCode(Math.max(id - 3, 32)), logprob: logProbs[at]!, bytes: [id - 3], top_logprobs: [] });
    return { reply, calls, ids, promptIds, wantsLogprobs, withIds, entry, finish: truncated ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop' };
  }

  function message(g: ReturnType<typeof generate>) {
    return {
      role: 'assistant',
      content: g.reply.content ?? (g.calls.length > 0 ? null : ''),
      ...(g.reply.reasoning ? { reasoning: g.reply.reasoning } : {}),
      tool_calls: g.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      refusal: null,
    };
  }

  function whole(res: ServerResponse, body: any) {
    const g = generate(body);
    send(res, 200, {
      id: 'chatcmpl-fakevllm',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [
        {
          index: 0,
          message: message(g),
          logprobs: g.wantsLogprobs ? { content: g.ids.map(g.entry) } : null,
          finish_reason: g.finish,
          stop_reason: null,
          ...(g.withIds ? { token_ids: g.ids } : {}),
        },
      ],
      usage: { prompt_tokens: g.promptIds.length, completion_tokens: g.ids.length, total_tokens: g.promptIds.length + g.ids.length },
      ...(g.withIds ? { prompt_token_ids: g.promptIds } : { prompt_token_ids: null }),
      prompt_logprobs: null,
      kv_transfer_params: null,
    });
  }

  function streamed(res: ServerResponse, body: any) {
    const g = generate(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fakevllm', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices, ...extra })}\n\n`);
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], g.withIds ? { prompt_token_ids: g.promptIds } : {});
    // Text (reasoning, content) one token per chunk; tool calls whole in one delta, as vLLM's parsers send them.
    const reasoningLength = g.reply.reasoning ? idsOf(`<think>${g.reply.reasoning}</think>`).length : 0;
    const contentLength = idsOf(g.reply.content ?? '').length;
    const reasoningText = [...Buffer.from(g.reply.reasoning ?? '')];
    const contentText = [...Buffer.from(g.reply.content ?? '')];
    g.ids.forEach((id, at) => {
      const last = at === g.ids.length - 1;
      const delta: Record<string, unknown> = {};
      // Each byte of the text goes out with its own token; markers and calls carry their ids with empty deltas.
      const inReasoning = at >= 7 && at < 7 + reasoningText.length && reasoningLength > 0;
      const contentAt = at - reasoningLength;
      if (inReasoning) delta.reasoning = Buffer.from([reasoningText[at - 7]!]).toString('latin1');
      else if (contentAt >= 0 && contentAt < contentLength) delta.content = Buffer.from([contentText[contentAt]!]).toString('latin1');
      if (last && g.calls.length > 0) {
        delta.tool_calls = g.calls.map((c, index) => ({ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      chunk([
        {
          index: 0,
          delta,
          logprobs: g.wantsLogprobs ? { content: [g.entry(id, at)] } : null,
          finish_reason: last ? g.finish : null,
          ...(g.withIds ? { token_ids: [id] } : {}),
        },
      ]);
    });
    if (body.stream_options?.include_usage) chunk([], { usage: { prompt_tokens: g.promptIds.length, completion_tokens: g.ids.length, total_tokens: g.promptIds.length + g.ids.length } });
    res.end('data: [DONE]\n\n');
  }

  function send(res: ServerResponse, status: number, payload: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push({ path: req.url ?? '', body, headers: req.headers });
    if (req.url === '/tokenize') {
      const tokens = idsOf(fakeRender(body));
      return send(res, 200, { count: tokens.length, max_model_len: 32_768, tokens, token_strs: null });
    }
    if (req.method === 'GET' && (req.url === '/v1/models' || req.url === '/health')) {
      return send(res, 200, { object: 'list', data: [{ id: 'fake', object: 'model', owned_by: 'vllm' }] });
    }
    if (req.url !== '/v1/chat/completions') return send(res, 404, { object: 'error', message: `Not Found: ${req.url}`, type: 'NotFoundError', param: null, code: 404 });
    if (opts.latencyMs) await new Promise((resolve) => setTimeout(resolve, opts.latencyMs));
    if (body.stream) return streamed(res, body);
    return whole(res, body);
  };
  const server = createServer((req, res) => void handle(req, res).catch((e: unknown) => send(res, 500, { object: 'error', message: String(e), type: 'InternalServerError', param: null, code: 500 })));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/v1`,
    requests,
    sent,
    script: (...replies) => void queue.push(...replies),
    withoutReturnTokenIds: () => void (returnTokenIds = false),
    textTokens: () => void (tokenIdStrings = false),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
