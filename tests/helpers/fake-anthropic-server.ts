// A FAKE Anthropic Messages API for tests: a real node:http server on 127.0.0.1 answering
// `POST /v1/messages` in Anthropic's wire shape (content blocks, stop_reason, usage with cache counts,
// `{"type":"error",...}` errors), checking the x-api-key and anthropic-version headers as the real API
// does, and recording every request. A request with `stream: true` is answered as Anthropic streams: SSE
// events message_start, content_block_start/delta/stop per block (text and tool input in several pieces),
// message_delta with the stop reason and usage, message_stop.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamHold } from './stream-hold';

export interface FakeAnthropic {
  /** Base URL without /v1, as Anthropic's clients take it. */
  url: string;
  requests: { headers: Record<string, string | string[] | undefined>; body: any }[];
  /** Content blocks (and stop reason) of the next answers, in order; then a plain text answer. */
  script(...replies: { content: unknown[]; stop_reason?: string }[]): void;
  /**
   * From now on, a streamed answer sends its first text piece, then waits until `release` is called before
   * sending the rest; `firstPieceSent` resolves once that piece is written.
   */
  holdStreams(): { firstPieceSent: Promise<void>; release(): void };
  /** From now on, streamed answers end after their first block, without message_stop (a cut stream). */
  cutStreams(cut: boolean): void;
  close(): Promise<void>;
}

/** Text or JSON in three pieces, as a model's tokens come. */
function pieces(text: string): string[] {
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter(Boolean);
}

export async function startFakeAnthropic(key: string): Promise<FakeAnthropic> {
  const requests: FakeAnthropic['requests'] = [];
  const queue: { content: unknown[]; stop_reason?: string }[] = [];
  let hold: { first: () => void; released: Promise<void> } | undefined;
  let cut = false;

  async function stream(res: ServerResponse, message: Record<string, any>) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_fake${requests.length}` });
    const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const { content, stop_reason, usage, ...head } = message;
    event('message_start', { message: { ...head, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
    event('ping', {});
    const gate = hold;
    let held = false;
    for (const [index, block] of (content as Record<string, any>[]).entries()) {
      if (block.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const text of pieces(block.text)) {
          event('content_block_delta', { index, delta: { type: 'text_delta', text } });
          if (gate && !held) {
            held = true;
            gate.first();
            await gate.released;
          }
        }
      } else if (block.type === 'tool_use') {
        event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        for (const partial_json of pieces(JSON.stringify(block.input))) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      } else if (block.type === 'thinking') {
        event('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
        for (const thinking of pieces(block.thinking)) event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
        event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
      }
      event('content_block_stop', { index });
      if (cut) return void res.end();
    }
    event('message_delta', { delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    event('message_stop', {});
    res.end();
  }
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake${requests.length}` });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, type: string, message: string) => send(res, status, { type: 'error', error: { type, message } });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push({ headers: req.headers, body });
    if (req.url !== '/v1/messages') return error(res, 404, 'not_found_error', `Not found: ${req.url}`);
    if (req.headers['x-api-key'] !== key) return error(res, 401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (typeof body.max_tokens !== 'number') return error(res, 400, 'invalid_request_error', 'max_tokens: Field required');
    const reply = queue.shift() ?? { content: [{ type: 'text', text: 'Hello from the fake Anthropic API.' }] };
    const stop = reply.stop_reason ?? (reply.content.some((b: any) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const message = {
      id: 'msg_fake01',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: reply.content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 12 },
    };
    if (body.stream === true) return stream(res, message);
    send(res, 200, message);
  };
  const server = createServer((req, res) => void handle(req, res).catch((e: unknown) => error(res, 500, 'api_error', String(e))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    holdStreams() {
      const held = streamHold();
      hold = held.gate;
      return {
        firstPieceSent: held.firstPieceSent,
        release: () => {
          hold = undefined;
          held.release();
        },
      };
    },
    cutStreams(on) {
      cut = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
