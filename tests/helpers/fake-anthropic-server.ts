// A FAKE Anthropic Messages API for tests: a real node:http server on 127.0.0.1 answering
// `POST /v1/messages` in Anthropic's wire shape (content blocks, stop_reason, usage with cache counts,
// `{"type":"error",...}` errors), checking the x-api-key and anthropic-version headers as the real API
// does, and recording every request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnthropic {
  /** Base URL without /v1, as Anthropic's clients take it. */
  url: string;
  requests: { headers: Record<string, string | string[] | undefined>; body: any }[];
  /** Content blocks (and stop reason) of the next answers, in order; then a plain text answer. */
  script(...replies: { content: unknown[]; stop_reason?: string }[]): void;
  close(): Promise<void>;
}

export async function startFakeAnthropic(key: string): Promise<FakeAnthropic> {
  const requests: FakeAnthropic['requests'] = [];
  const queue: { content: unknown[]; stop_reason?: string }[] = [];
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
    send(res, 200, {
      id: 'msg_fake01',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: reply.content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 12 },
    });
  };
  const server = createServer((req, res) => void handle(req, res).catch((e: unknown) => error(res, 500, 'api_error', String(e))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
