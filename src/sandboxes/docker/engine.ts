// A small client of the Docker Engine API over its Unix socket (undici): JSON calls, raw bodies for the
// archive endpoints, and the hijacked connection an exec's output (and stdin) flows through.
import type { Duplex, Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { GymError } from '../../errors';

/** Where the engine listens: DOCKER_HOST when it names a Unix socket, else Docker's default socket. */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  const host = env.DOCKER_HOST;
  if (host === undefined || host === '') return '/var/run/docker.sock';
  if (host.startsWith('unix://')) return host.slice('unix://'.length);
  throw new GymError('SETUP_FAILED', `DOCKER_HOST=${host}: the docker provider speaks to a local engine over a Unix socket (unix:///path)`);
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: Buffer | Readable;
  contentType?: string;
}

export class DockerEngine {
  private readonly agent: Agent;

  constructor(readonly socketPath: string) {
    this.agent = new Agent({ connect: { socketPath }, headersTimeout: 0, bodyTimeout: 0 });
  }

  /** A call whose answer is JSON (or empty); an error status becomes a GymError with the engine's message. */
  async json<T>(method: Dispatcher.HttpMethod, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.call(method, path, options);
    const text = await response.body.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** A call whose body the caller reads (an archive). */
  async call(method: Dispatcher.HttpMethod, path: string, options: CallOptions = {}): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {};
    let body: Buffer | Readable | string | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    } else if (options.contentType) headers['content-type'] = options.contentType;
    let response: Dispatcher.ResponseData;
    try {
      response = await this.agent.request({ origin: 'http://docker', path: withQuery(path, options.query), method, headers, body });
    } catch (e) {
      throw this.unreachable(e);
    }
    if (response.statusCode >= 400) {
      const text = await response.body.text().catch(() => '');
      throw engineError(response.statusCode, `${method} ${path}`, text);
    }
    return response;
  }

  /**
   * Starts an exec on a hijacked connection (the engine answers 101 and the socket then carries the
   * multiplexed output one way and stdin the other).
   */
  async hijack(path: string, json: unknown): Promise<Duplex> {
    try {
      // undici's upgrade passes origin and body on to the request, though its types leave them out.
      const options = { origin: 'http://docker', path, method: 'POST', protocol: 'tcp', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) };
      const { socket } = await this.agent.upgrade(options as Dispatcher.UpgradeOptions);
      return socket;
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (typeof status === 'number') throw engineError(status, `POST ${path}`, String((e as { body?: unknown }).body ?? ''));
      throw this.unreachable(e);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private unreachable(e: unknown): GymError {
    if (e instanceof GymError) return e;
    const code = (e as { code?: string }).code ?? '';
    if (['ENOENT', 'ECONNREFUSED', 'EACCES'].includes(code)) {
      return new GymError('SETUP_FAILED', `no Docker Engine at unix://${this.socketPath} (${code}): start dockerd there, or point DOCKER_HOST (unix://…) at a running one`);
    }
    return new GymError('UNREACHABLE', `Docker Engine at unix://${this.socketPath}: ${(e as Error).message}`);
  }
}

function withQuery(path: string, query: CallOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

function engineError(status: number, what: string, text: string): GymError {
  let message = text.trim();
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch {
    // The engine answered plain text; keep it as it is.
  }
  const code = status === 404 ? 'NOT_FOUND' : status === 409 ? 'CONFLICT' : status === 400 ? 'BAD_INPUT' : 'ENV_ERROR';
  return new GymError(code, `Docker Engine: ${what} → ${status}: ${message}`);
}
