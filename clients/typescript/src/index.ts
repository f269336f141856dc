// A typed client of the Gymflow trigger API: one method per route, errors as GymflowApiError, and a run's
// server-sent events as an async iterator. Types come from the server's own zod schemas (types only).
import type { ErrorBody, RunCreated, RunList, RunProgress, RunRequest, RunView, SteerAnswer } from '../../../src/api/schemas';

export type { ErrorBody, RunCreated, RunList, RunProgress, RunRequest, RunView, SteerAnswer };

export interface ListFilter {
  env?: string;
  agent?: string;
  model?: string;
  status?: 'running' | 'paused' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';
  limit?: number;
}

export type RunEvent = { type: 'progress'; data: RunProgress } | { type: 'error'; data: ErrorBody } | { type: 'end'; data: RunView };

/** An error the API answered: its HTTP status, stable code, message and the request field at fault. */
export class GymflowApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly details?: string[],
  ) {
    super(message);
    this.name = 'GymflowApiError';
  }
}

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8421 */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
}

export class GymflowClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? fetch;
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.fetch(`${this.baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.opts.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw errorOf(res.status, text);
    return JSON.parse(text) as T;
  }

  /** Starts a run; with an idempotency key, sending it again answers the same run instead of starting another. */
  startRun(request: RunRequest, opts: { idempotencyKey?: string } = {}): Promise<RunCreated> {
    return this.call('POST', '/v1/runs', request, opts.idempotencyKey === undefined ? {} : { 'idempotency-key': opts.idempotencyKey });
  }

  listRuns(filter: ListFilter = {}): Promise<RunList> {
    const query = new URLSearchParams(Object.entries(filter).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])));
    return this.call('GET', `/v1/runs${query.size ? `?${query}` : ''}`);
  }

  getRun(runId: string): Promise<RunView> {
    return this.call('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  }

  cancelRun(runId: string): Promise<SteerAnswer> {
    return this.call('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`);
  }

  pauseRun(runId: string): Promise<SteerAnswer> {
    return this.call('POST', `/v1/runs/${encodeURIComponent(runId)}/pause`);
  }

  resumeRun(runId: string): Promise<SteerAnswer> {
    return this.call('POST', `/v1/runs/${encodeURIComponent(runId)}/resume`);
  }

  /** The run's events until it ends (the last one is `end`), or until `signal` aborts. */
  async *events(runId: string, opts: { signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const res = await this.fetch(`${this.baseUrl}/v1/runs/${encodeURIComponent(runId)}/events`, {
      headers: { authorization: `Bearer ${this.opts.token}`, accept: 'text/event-stream' },
      signal: opts.signal,
    });
    if (!res.ok || !res.body) throw errorOf(res.status, await res.text());
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const event = parseEvent(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (event) yield event;
      }
    }
  }

  /** Follows the run's events to its end and answers its last view (status and metrics). */
  async waitForEnd(runId: string, opts: { signal?: AbortSignal } = {}): Promise<RunView> {
    for await (const event of this.events(runId, opts)) if (event.type === 'end') return event.data;
    throw new GymflowApiError(0, 'UNREACHABLE', `the event stream of run ${runId} ended before the run did`);
  }
}

function errorOf(status: number, text: string): GymflowApiError {
  try {
    const { error } = JSON.parse(text) as ErrorBody;
    return new GymflowApiError(status, error.code, error.message, error.field, error.details);
  } catch {
    return new GymflowApiError(status, 'INTERNAL', text.slice(0, 500) || `HTTP ${status}`);
  }
}

/** One server-sent event block: `event:` and `data:` lines; comments (keep-alives) are skipped. */
function parseEvent(block: string): RunEvent | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (!data.length || (type !== 'progress' && type !== 'error' && type !== 'end')) return undefined;
  return { type, data: JSON.parse(data.join('\n')) } as RunEvent;
}
