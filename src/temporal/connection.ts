// How Gymflow reaches Temporal: an existing cluster named by TEMPORAL_ADDRESS (with namespace, TLS
// and API-key settings), or else the embedded dev server, started when none is listening.
import { readFile } from 'node:fs/promises';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import { GymError } from '../errors';
import { connectFailure, namespaceError, refusalError, type TlsMaterial } from './connect-errors';
import { isListening, startDevServer } from './dev-server';

/** Files (paths) and the server name of a TLS connection; none given means TLS with this machine's CAs. */
export interface TlsSettings {
  certPath?: string;
  keyPath?: string;
  caPath?: string;
  serverName?: string;
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  /** True when no cluster was configured and Gymflow may start its own dev server. */
  embedded: boolean;
  /** TLS settings; `false` (TEMPORAL_TLS=false) keeps the connection plaintext even with an API key. */
  tls?: TlsSettings | false;
  /** The API key itself stays in the environment; only its variable's name travels. */
  apiKeyEnv?: string;
}

export const DEFAULT_ADDRESS = '127.0.0.1:7233';

const TLS_VARS = { certPath: 'TEMPORAL_TLS_CERT', keyPath: 'TEMPORAL_TLS_KEY', caPath: 'TEMPORAL_TLS_CA', serverName: 'TEMPORAL_TLS_SERVER_NAME' } as const;

/**
 * The connection the environment asks for, with Temporal's CLI's variable names. TLS is on when TEMPORAL_TLS
 * is true, any TLS file or the server name is set, or an API key is (as Temporal Cloud wants); TEMPORAL_TLS=false
 * turns it off, for a key over a plaintext connection.
 */
export function temporalSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const flag = env.TEMPORAL_TLS || undefined;
  if (flag !== undefined && flag !== 'true' && flag !== 'false') throw new GymError('BAD_FLAG', `TEMPORAL_TLS must be true or false, got "${flag}"`);
  const files: TlsSettings = {};
  for (const [field, name] of Object.entries(TLS_VARS) as [keyof TlsSettings, string][]) if (env[name]) files[field] = env[name];
  const named = Object.entries(TLS_VARS)
    .filter(([field]) => files[field as keyof TlsSettings])
    .map(([, name]) => name);
  if (flag === 'false' && named.length) throw new GymError('BAD_FLAG', `TEMPORAL_TLS=false, but ${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} set: unset one or the other`);
  if (!files.certPath !== !files.keyPath) throw new GymError('BAD_FLAG', 'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its private key): set both or neither');
  return {
    address: env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    embedded: !env.TEMPORAL_ADDRESS,
    tls: flag === 'false' ? false : flag === 'true' || named.length ? files : undefined,
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

/** The TLS files' contents; undefined when the connection is plaintext. */
async function tlsMaterial(settings: TemporalSettings): Promise<TlsMaterial | undefined> {
  if (settings.tls === false || (!settings.tls && !settings.apiKeyEnv)) return undefined;
  const files = settings.tls ?? {};
  const read = async (field: 'certPath' | 'keyPath' | 'caPath') => {
    const file = files[field];
    if (!file) return undefined;
    try {
      return await readFile(file);
    } catch (e) {
      throw new GymError('BAD_FLAG', `${TLS_VARS[field]}=${file} cannot be read: ${(e as Error).message}`);
    }
  };
  const [cert, key, ca] = await Promise.all([read('certPath'), read('keyPath'), read('caPath')]);
  return { cert, key, ca, serverName: files.serverName };
}

/** The SDKs' `tls` option: off, on with this machine's CAs (`true` or `{}`), or with the given files. */
function tlsOption(settings: TemporalSettings, material: TlsMaterial | undefined) {
  if (!material) return settings.tls === false ? false : undefined;
  return {
    serverNameOverride: material.serverName,
    serverRootCACertificate: material.ca,
    clientCertPair: material.cert && material.key ? { crt: material.cert, key: material.key } : undefined,
  };
}

function apiKey(settings: TemporalSettings): string | undefined {
  return settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined;
}

/**
 * A client of the configured namespace. Connecting asks only for the server's system info, which a server
 * gives anyone; the namespace is described as well, so a refused key or a missing namespace is said here,
 * with the setting to fix, instead of as the first failing call of a command.
 */
export async function connectClient(settings: TemporalSettings): Promise<Client> {
  const material = await tlsMaterial(settings);
  const options: ConnectionOptions = { address: settings.address, tls: tlsOption(settings, material), apiKey: apiKey(settings) };
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...options, connectTimeout: '10s' });
  } catch (e) {
    throw await connectFailure(settings, e, material);
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: settings.namespace });
  } catch (e) {
    await connection.close().catch(() => {});
    throw refusalError(settings, e) ?? namespaceError(settings, e) ?? (await connectFailure(settings, e, material));
  }
  return new Client({ connection, namespace: settings.namespace });
}

export async function connectWorker(settings: TemporalSettings): Promise<NativeConnection> {
  const material = await tlsMaterial(settings);
  const options: NativeConnectionOptions = { address: settings.address, tls: tlsOption(settings, material), apiKey: apiKey(settings) };
  try {
    // Imported here: the worker package loads Temporal's native core, which clients do not need.
    const { NativeConnection } = await import('@temporalio/worker');
    return await NativeConnection.connect(options);
  } catch (e) {
    throw await connectFailure(settings, e, material, 'a worker');
  }
}
