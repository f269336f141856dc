// How Gymflow reaches Temporal: an existing cluster named by TEMPORAL_ADDRESS (with namespace, TLS
// and API-key settings), or else the embedded dev server, started when none is listening.
import { readFile } from 'node:fs/promises';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import { GymError } from '../errors';
import { isListening, startDevServer } from './dev-server';

export interface TemporalSettings {
  address: string;
  namespace: string;
  /** True when no cluster was configured and Gymflow may start its own dev server. */
  embedded: boolean;
  tls?: { certPath?: string; keyPath?: string; caPath?: string; serverName?: string };
  /** The API key itself stays in the environment; only its variable's name travels. */
  apiKeyEnv?: string;
}

export const DEFAULT_ADDRESS = '127.0.0.1:7233';

export function temporalSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const tlsWanted = env.TEMPORAL_TLS === 'true' || env.TEMPORAL_TLS_CERT || env.TEMPORAL_TLS_CA;
  return {
    address: env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    embedded: !env.TEMPORAL_ADDRESS,
    tls: tlsWanted ? { certPath: env.TEMPORAL_TLS_CERT, keyPath: env.TEMPORAL_TLS_KEY, caPath: env.TEMPORAL_TLS_CA, serverName: env.TEMPORAL_TLS_SERVER_NAME } : undefined,
    apiKeyEnv: env.TEMPORAL_API_KEY ? 'TEMPORAL_API_KEY' : undefined,
  };
}

/** Makes sure a server answers at the configured address, starting the embedded one if allowed. */
export async function ensureServer(settings: TemporalSettings, log: (line: string) => void = () => {}): Promise<TemporalSettings> {
  if (await isListening(settings.address, 1500)) return settings;
  if (!settings.embedded) {
    throw new GymError('UNREACHABLE', `no Temporal server answers at ${settings.address} (TEMPORAL_ADDRESS); start it or unset TEMPORAL_ADDRESS to use the embedded server`);
  }
  log(`starting the embedded Temporal server on ${settings.address}`);
  const port = Number(settings.address.split(':').at(-1));
  const info = await startDevServer({ port, log });
  if (info.uiUrl) log(`Temporal Web UI: ${info.uiUrl}`);
  return { ...settings, address: info.address };
}

async function tlsOptions(settings: TemporalSettings) {
  if (!settings.tls) return settings.apiKeyEnv ? true : undefined;
  const read = async (p?: string) => (p ? readFile(p) : undefined);
  const [crt, key, ca] = await Promise.all([read(settings.tls.certPath), read(settings.tls.keyPath), read(settings.tls.caPath)]);
  return {
    serverNameOverride: settings.tls.serverName,
    serverRootCACertificate: ca,
    clientCertPair: crt && key ? { crt, key } : undefined,
  };
}

function apiKey(settings: TemporalSettings): string | undefined {
  return settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined;
}

export async function connectClient(settings: TemporalSettings): Promise<Client> {
  const options: ConnectionOptions = { address: settings.address, tls: await tlsOptions(settings), apiKey: apiKey(settings) };
  try {
    const connection = await Connection.connect({ ...options, connectTimeout: '10s' });
    return new Client({ connection, namespace: settings.namespace });
  } catch (e) {
    throw new GymError('UNREACHABLE', `cannot connect to Temporal at ${settings.address}: ${(e as Error).message}`);
  }
}

export async function connectWorker(settings: TemporalSettings): Promise<NativeConnection> {
  const options: NativeConnectionOptions = { address: settings.address, tls: await tlsOptions(settings), apiKey: apiKey(settings) };
  try {
    // Imported here: the worker package loads Temporal's native core, which clients do not need.
    const { NativeConnection } = await import('@temporalio/worker');
    return await NativeConnection.connect(options);
  } catch (e) {
    throw new GymError('UNREACHABLE', `cannot connect a worker to Temporal at ${settings.address}: ${(e as Error).message}`);
  }
}
