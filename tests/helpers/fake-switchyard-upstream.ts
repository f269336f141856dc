// A FAKE OpenAI-compatible upstream for the Switchyard tests (the real model providers cannot run here):
// a node:http server on 127.0.0.1 that records every request Switchyard forwards to it (path, headers,
// the target model it asked for) and answers it with Gymflow's mock model for that target, so the answers
// play a real environment. Each target id (e.g. `fake/strong`) is a mock model of its own accuracy.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startGateway, type Gateway } from '../../src/gateway/server';

export interface ForwardedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The model Switchyard asked for: one of its targets' ids. */
  model: string;
  /** Whether Switchyard asked for a stream. */
  stream: boolean;
}

export interface FakeSwitchyardUpstream {
  /** Base URL with /v1, for a deployment's `[llm_clients.*] base_url`. */
  url: string;
  /** Every model request received so far, in arrival order. */
  requests: ForwardedRequest[];
  close(): Promise<void>;
}

interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  choices: { message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[];
  usage?: unknown;
}

/** A whole chat completion as the chunks an OpenAI-compatible provider streams: text in pieces, then each tool call. */
function chatChunks(answer: ChatAnswer, usage: boolean): object[] {
  const head = { id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model };
  const choice = answer.choices[0]!;
  const text = choice.message.content ?? '';
  const words = text.match(/\S+\s*/g) ?? [];
  const chunks: object[] = [{ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  for (const word of words) chunks.push({ ...head, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
  (choice.message.tool_calls ?? []).forEach((call, index) =>
    chunks.push({ ...head, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: call.function }] }, finish_reason: null }] }),
  );
  chunks.push({ ...head, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  if (usage && answer.usage) chunks.push({ ...head, choices: [], usage: answer.usage });
  return chunks;
}

async function bodyOf(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** `targets` maps each target id to the accuracy of the mock that answers as it. */
export async function startFakeSwitchyardUpstream(opts: { env: string; tasksFile: string; targets: Record<string, number> }): Promise<FakeSwitchyardUpstream> {
  const mocks: Gateway = await startGateway({ logger: pino({ level: 'silent' }) });
  const names = new Map(Object.entries(opts.targets).map(([id, accuracy]) => [id, mocks.register({ backend: 'mock', env: opts.env, tasks_file: opts.tasksFile, accuracy })]));
  const requests: ForwardedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [...names.keys()].map((id) => ({ id, object: 'model' })) }));
        return;
      }
      const body = await bodyOf(req);
      requests.push({ path, headers: req.headers, model: body.model, stream: body.stream === true });
      const mock = names.get(body.model);
      if (!mock) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `the fake upstream has no model ${body.model}`, type: 'invalid_request_error', code: 'model_not_found' } }));
        return;
      }
      const reply = await mocks.call({ path, body: { ...body, model: mock, stream: false } });
      // Answer as the target Switchyard asked for, as a real provider names its own model.
      const answer = reply.status < 300 ? { ...(reply.body as object), model: body.model } : reply.body;
      if (body.stream === true && reply.status < 300 && path.endsWith('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const chunk of chatChunks(answer as ChatAnswer, body.stream_options?.include_usage === true)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })().catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await mocks.close();
    },
  };
}

/** A deployment over the fake upstream: route `fixed` (passthrough to `strong`) and route `routed` (random over both). */
export function deploymentToml(upstreamUrl: string, keyEnv: string, opts: { format?: 'openai_chat' | 'openai_responses' } = {}): string {
  return `schema_version = 1

[llm_clients.fake]
format = "${opts.format ?? 'openai_chat'}"
base_url = "${upstreamUrl}"
api_key_env = "${keyEnv}"

[targets.strong]
id = "fake/strong"
llm_client = "fake"

[targets.weak]
id = "fake/weak"
llm_client = "fake"

[routes.fixed]
id = "fixed"
type = "passthrough"
target = "strong"

[routes.routed]
id = "routed"
type = "random"
targets = ["strong", "weak"]
`;
}
