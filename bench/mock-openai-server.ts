// A zero-latency OpenAI-compatible model for benchmarks: real HTTP on loopback, answering /v1/responses
// and /v1/chat/completions with a fixed mcqa letter, optionally after a fixed delay, so every peer pays the same model hop.
// A chat call with `stream: true` is answered as an event stream.
//   node --import tsx bench/mock-openai-server.ts [--port 0] [--latency-ms 0] [--letter B]
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GymError } from '../src/errors';
import { parseFlags, runMain } from './lib/flags';

export interface MockOpenAIOptions {
  port?: number;
  /** Milliseconds each answer waits before it is sent. */
  latencyMs?: number;
  /** The letter answered when the prompt lists it as an option; otherwise the first listed option. */
  letter?: string;
}

export interface MockOpenAIServer {
  /** Base URL with /v1, as OpenAI clients want it. */
  url: string;
  port: number;
  /** Model requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

const OPTION_LINE = /^([A-Z])[:.)]\s/gm;

/** The letter to answer for a prompt: the configured one when it is an option, else the first option. */
export function chooseLetter(prompt: string, letter: string): string {
  const options = [...prompt.matchAll(OPTION_LINE)].map((m) => m[1]!);
  return options.length === 0 || options.includes(letter) ? letter : options[0]!;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

/** The text of the last user turn, from a Responses `input` or a chat `messages` list. */
function lastUserText(items: unknown): string {
  if (typeof items === 'string') return items;
  if (!Array.isArray(items)) return '';
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.role === 'user') return textOf(item.content);
  }
  return '';
}

// Rough token counts (4 characters a token): enough for clients that read usage, free to compute.
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

let serial = 0;

function responseBody(body: any, answer: string, prompt: string) {
  const id = (++serial).toString(36).padStart(8, '0');
  const inputTokens = tokens(prompt);
  const outputTokens = tokens(answer);
  return {
    id: `resp_mock${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model ?? 'mock-model',
    output: [
      {
        type: 'message',
        id: `msg_mock${id}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: answer, annotations: [] }],
      },
    ],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? 1,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
}

function chatBody(body: any, answer: string, prompt: string) {
  const id = (++serial).toString(36).padStart(8, '0');
  const promptTokens = tokens(prompt);
  const completionTokens = tokens(answer);
  return {
    id: `chatcmpl-mock${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content: answer, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** A chat completion as the event stream a streamed call gets: role, the answer, the finish, the usage, [DONE]. */
function chatEvents(whole: ReturnType<typeof chatBody>): string {
  const chunk = (choices: unknown[], extra: object = {}) => ({ id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, choices, ...extra });
  const message = whole.choices[0]!.message;
  return (
    [
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]),
      chunk([{ index: 0, delta: { content: message.content }, finish_reason: null, logprobs: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }]),
      chunk([], { usage: whole.usage }),
    ]
      .map((c) => `data: ${JSON.stringify(c)}\n\n`)
      .join('') + 'data: [DONE]\n\n'
  );
}

function sendEvents(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(text);
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const openAIError = (message: string) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } });

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

export async function startMockOpenAI(opts: MockOpenAIOptions = {}): Promise<MockOpenAIServer> {
  const latencyMs = opts.latencyMs ?? 0;
  const letter = opts.letter ?? 'B';
  if (!/^[A-Z]$/.test(letter)) throw new GymError('BAD_FLAG', `--letter must be one capital letter, got "${letter}"`);
  let answered = 0;
  const server = createServer((req, res) => {
    const route = `${req.method} ${req.url?.split('?')[0]}`;
    if (route === 'GET /v1/models') return send(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'gymflow-bench' }] });
    if (route !== 'POST /v1/responses' && route !== 'POST /v1/chat/completions') return send(res, 404, openAIError(`the mock model has no route ${route}`));
    readJson(req).then(
      (body) => {
        const isChat = route === 'POST /v1/chat/completions';
        const prompt = lastUserText(isChat ? body.messages : body.input);
        const answer = `The answer is \\boxed{${chooseLetter(prompt, letter)}}`;
        const payload = isChat ? chatBody(body, answer, prompt) : responseBody(body, answer, prompt);
        // A streamed chat call gets its events (as a model server sends them, in one write: the bench
        // measures the hop, not generation); a streamed Responses call still gets the answer whole.
        const streamed = isChat && body.stream === true;
        const reply = () => {
          answered++;
          if (streamed) sendEvents(res, chatEvents(payload as ReturnType<typeof chatBody>));
          else send(res, 200, payload);
        };
        if (latencyMs > 0) setTimeout(reply, latencyMs);
        else reply();
      },
      () => send(res, 400, openAIError('the request body is not JSON')),
    );
  });
  // Thousands of concurrent keep-alive clients are the point; do not let Node's defaults cut them off.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.requestTimeout = 0;
  server.maxConnections = Infinity;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new GymError('CONFLICT', `the mock model could not listen on port ${opts.port ?? 0}: ${e.message}`)));
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runMain(async () => {
    const flags = parseFlags('node --import tsx bench/mock-openai-server.ts [flags]', {
      port: { kind: 'int', default: 0, help: 'port on 127.0.0.1 (0 picks a free one)' },
      'latency-ms': { kind: 'number', default: 0, help: 'delay before each answer' },
      letter: { kind: 'string', default: 'B', help: 'the mcqa letter to answer' },
    });
    const server = await startMockOpenAI({ port: flags.port, latencyMs: flags['latency-ms'], letter: flags.letter });
    process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
  });
}
