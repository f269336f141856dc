// What a command needs to talk to Temporal: the server (started if embedded and missing), a client,
// and, for commands that drive runs, an in-process worker.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { connectClient, connectWorker, ensureServer, temporalSettingsFromEnv, type TemporalSettings } from '../temporal/connection';
import { ensureSearchAttributes } from '../temporal/register-search-attributes';
import type { WorkerRole } from '../../workers/roles';
import type { GymWorker } from '../../workers/worker';
import type { GatewayOptions } from '../gateway/server';

export interface Session {
  settings: TemporalSettings;
  /** The current client; `reconnect` replaces it. */
  readonly client: Client;
  /**
   * Replaces the client with a freshly connected one. After an outage the old channel may sit out a
   * reconnect backoff of up to two minutes before it tries again; a new connection tries at once.
   */
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

export async function openSession(say: (line: string) => void): Promise<Session> {
  const settings = await ensureServer(temporalSettingsFromEnv(), say);
  let client = await connectClient(settings);
  if (!settings.embedded) await ensureSearchAttributes(client, settings.namespace);
  return {
    settings,
    get client() {
      return client;
    },
    async reconnect() {
      // The old connection is left open, not closed: a call on it may still be waiting out a retry of
      // the client's gRPC interceptor, and closing the channel under that timer throws an uncaught
      // "Channel has been shut down" that kills the command. One idle channel per outage is cheap, and
      // the command's process exit ends them all.
      client = await connectClient(settings);
    },
    close: () => client.connection.close(),
  };
}

/** A worker for one task queue: a run's own, or a shared pool's. */
export async function startWorker(session: Session, logger: Logger, taskQueue: string, gateway?: GatewayOptions, limits: { role?: WorkerRole; maxRollouts?: number } = {}): Promise<GymWorker> {
  // Loaded here: the worker brings Temporal's native core, every activity and environment, and the
  // gateway, which commands that only read or steer a run never use.
  const { createGymWorker, installRuntime } = await import('../../workers/worker');
  installRuntime(logger);
  const connection = await connectWorker(session.settings);
  return createGymWorker({ connection, namespace: session.settings.namespace, taskQueue, logger, gateway, ...limits });
}
