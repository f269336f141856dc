// A FAKE OpenAI upstream for tests: a real node:http server on 127.0.0.1 that speaks the OpenAI wire
// protocol (POST /v1/responses, POST /v1/chat/completions, OpenAI error bodies) and records every
// request it receives, headers included, so tests can check what the gateway sent. It can also go
// silent, as a stuck endpoint does, to test the gateway's timeouts, or inject seeded faults at set rates.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRng } from '../../src/util/rng';
import { streamHold } from '../helpers/stream-hold';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** sha256 of the raw body: a retry of a call sends the same bytes. */
  digest: string;
  /** The fault injected into this request's answer, if any. */
  fault?: InjectedFault;
}

export type InjectedFault = { kind: 'server_error'; status: number } | { kind: 'too_many_requests'; retryAfterS: number } | { kind: 'stall' };

/**
 * Faults at set rates (each a probability per request). Each request's draw is seeded by the seed, its
 * body and how often that body came before, so a rollout meets the same faults however calls interleave.
 */
export interface FaultPlan {
  seed: number;
  serverError?: number;
  tooManyRequests?: number;
  /** The Retry-After (seconds) sent with each 429. */
  retryAfterS?: number;
  /** Take the request and never answer. */
  stall?: number;
}

const LINGER_MS = 20;

export interface FakeOpenAIUpstream {
  /** Base URL with /v1, as an OpenAI client wants it. */
  url: string;
  requests: RecordedRequest[];
  /** From now on, a streamed body stays open this long after its last event (default LINGER_MS). */
  lingerAfterLastEvent(ms: number): void;
  /** TCP connections accepted so far: a client that keeps its connections alive opens few. */
  connections(): number;
  /** From now on, answers every request with this status and an OpenAI error body. */
  failWith(status: number, message: string): void;
  /** From now on, answers every request with exactly this status and JSON body. */
  respondWith(status: number, body: unknown): void;
  /**
   * From now on, takes each request and then goes silent: `before-headers` never answers at all;
   * `mid-body` sends the headers and the start of a body, then nothing more.
   */
  stall(mode: 'before-headers' | 'mid-body'): void;
  /** From now on, injects faults by this plan into otherwise normal answers. */
  inject(plan: FaultPlan): void;
  /** The assistant text of every normal answer (default: a greeting). */
  answerWith(text: (body: any) => string): void;
  /**
   * From now on, a streamed answer (`stream: true`) sends its first piece, then waits until `release` is
   * called before sending the rest; `pieces` resolves once that first piece is written.
   */
  holdStreams(): { firstPieceSent: Promise<void>; release(): void };
  /** From now on, chat answers also call this tool (its arguments streamed in pieces). */
  callTool(call: { name: string; arguments: string } | undefined): void;
  /** From now on, answers normally again. */
  recover(): void;
  close(): Promise<void>;
}

function responseFor(body: any, text: string) {
  return {
    id: 'resp_fake0001',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: `${body.model}-2025-01-01`,
    output: [
      {
        type: 'message',
        id: 'msg_fake0001',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 },
  };
}

const CHAT_TEXT = 'Hi from the fake upstream.';

function chatCompletionFor(body: any, tool?: { name: string; arguments: string }) {
  return {
    id: 'chatcmpl-fake0001',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: `${body.model}-2025-01-01`,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: CHAT_TEXT, refusal: null, ...(tool ? { tool_calls: [{ id: 'call_fake0001', type: 'function', function: tool }] } : {}) },
        finish_reason: tool ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
  };
}

/** Text in pieces of a word or so, as a model streams it. */
const pieces = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];

/** The events of a streamed answer, in OpenAI's shapes: chat chunks (then [DONE]) or Responses events. */
function streamedEvents(route: 'chat' | 'responses', body: any, text: string, tool?: { name: string; arguments: string }): string[] {
  const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  if (route === 'chat') {
    const whole = chatCompletionFor(body, tool);
    const chunk = (delta: unknown, extra: Record<string, unknown> = {}, finish: string | null = null) =>
      sse({ id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra });
    const out = [chunk({ role: 'assistant', content: '' }), ...pieces(CHAT_TEXT).map((p) => chunk({ content: p }))];
    if (tool) {
      out.push(chunk({ tool_calls: [{ index: 0, id: 'call_fake0001', type: 'function', function: { name: tool.name, arguments: '' } }] }));
      for (const p of tool.arguments.match(/.{1,5}/gs) ?? []) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
    }
    out.push(chunk({}, {}, whole.choices[0]!.finish_reason));
    if (body.stream_options?.include_usage) out.push(sse({ id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, choices: [], usage: whole.usage }));
    out.push(sse('[DONE]'));
    return out;
  }
  const whole = responseFor(body, text);
  let n = 0;
  const ev = (type: string, rest: Record<string, unknown>) => sse({ type, sequence_number: n++, ...rest }, type);
  const at = { item_id: 'msg_fake0001', output_index: 0, content_index: 0 };
  return [
    ev('response.created', { response: { ...whole, status: 'in_progress', output: [], usage: null } }),
    ev('response.output_item.added', { output_index: 0, item: { ...whole.output[0], status: 'in_progress', content: [] } }),
    ev('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } }),
    ...pieces(text).map((p) => ev('response.output_text.delta', { ...at, delta: p })),
    ev('response.output_text.done', { ...at, text }),
    ev('response.output_item.done', { output_index: 0, item: whole.output[0] }),
    ev('response.completed', { response: whole }),
  ];
}

export async function startFakeOpenAIUpstream(): Promise<FakeOpenAIUpstream> {
  const requests: RecordedRequest[] = [];
  let fixed: { status: number; body: unknown } | undefined;
  let stalled: 'before-headers' | 'mid-body' | undefined;
  let plan: FaultPlan | undefined;
  let answerText = (_body: any) => 'Hello from the fake upstream.';
  const seen = new Map<string, number>();
  let hold: { first: () => void; released: Promise<void> } | undefined;
  let tool: { name: string; arguments: string } | undefined;

  /** Sends the events; a hold waits after the `firstPiece`-th (the answer's first piece of text). */
  async function stream(res: ServerResponse, events: string[], firstPiece: number) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_fake${requests.length}` });
    const gate = hold;
    for (const [i, e] of events.entries()) {
      res.write(e);
      if (gate && i === firstPiece) {
        gate.first();
        await gate.released;
      }
    }
    // The body ends a moment after its last event, as a model server's may: a client must read on to the end.
    await new Promise((r) => setTimeout(r, linger).unref());
    res.end();
  }

  function draw(digest: string): InjectedFault | undefined {
    if (!plan) return undefined;
    const n = seen.get(digest) ?? 0;
    seen.set(digest, n + 1);
    const u = seededRng(`${plan.seed}:${digest}:${n}`).next();
    const serverError = plan.serverError ?? 0;
    const tooMany = serverError + (plan.tooManyRequests ?? 0);
    if (u < serverError) return { kind: 'server_error', status: [500, 502, 503][n % 3]! };
    if (u < tooMany) return { kind: 'too_many_requests', retryAfterS: plan.retryAfterS ?? 1 };
    if (u < tooMany + (plan.stall ?? 0)) return { kind: 'stall' };
    return undefined;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const digest = createHash('sha256').update(raw).digest('hex');
    const fault = draw(digest);
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now(), digest, fault });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake${requests.length}`, ...headers });
      res.end(JSON.stringify(payload));
    };
    if (stalled === 'before-headers' || fault?.kind === 'stall') return;
    if (fault?.kind === 'server_error') return send(fault.status, { error: { message: 'injected server error', type: 'server_error', param: null, code: null } });
    if (fault?.kind === 'too_many_requests') {
      return send(429, { error: { message: 'injected rate limit', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': String(fault.retryAfterS) });
    }
    if (stalled === 'mid-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id": "resp_fake_stalled", "output": [');
      return;
    }
    if (fixed) return send(fixed.status, fixed.body);
    if (req.method === 'POST' && req.url === '/v1/responses') {
      if (body?.stream === true) return stream(res, streamedEvents('responses', body, answerText(body)), 3);
      return send(200, responseFor(body, answerText(body)));
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      if (body?.stream === true) return stream(res, streamedEvents('chat', body, '', tool), 1);
      return send(200, chatCompletionFor(body, tool));
    }
    send(404, { error: { message: `fake upstream has no route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: null } });
  };
  // A request the fake cannot handle (e.g. a body that is not JSON) answers 500 instead of an unhandled rejection.
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake upstream failed: ${String(e)}`, type: 'server_error', param: null, code: null } }));
    });
  });
  let connections = 0;
  let linger = LINGER_MS;
  server.on('connection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failWith(status, message) {
      fixed = { status, body: { error: { message, type: 'invalid_request_error', param: null, code: 'fake_failure' } } };
    },
    respondWith(status, body) {
      fixed = { status, body };
    },
    stall(mode) {
      stalled = mode;
    },
    inject(p) {
      plan = p;
    },
    answerWith(fn) {
      answerText = fn;
    },
    holdStreams() {
      const held = streamHold();
      hold = held.gate;
      return { firstPieceSent: held.firstPieceSent, release: held.release };
    },
    callTool(call) {
      tool = call;
    },
    connections: () => connections,
    lingerAfterLastEvent(ms) {
      linger = ms;
    },
    recover() {
      linger = LINGER_MS;
      hold = undefined;
      tool = undefined;
      fixed = undefined;
      stalled = undefined;
      plan = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
