// The S3-compatible object store a run's files go to with `--store s3://…`: get, list, remove, a plain put
// and the conditional put (If-None-Match: *, first writer wins) that exactly-once results rest on. The
// endpoint, region, path-style and credentials come from the standard AWS environment variables of each
// process; errors name the store's URL and the variable to check, never a secret.
import { createHash } from 'node:crypto';
import type * as S3 from '@aws-sdk/client-s3';
import { GymError } from '../../errors';
import { objectKey, parseStoreUrl, type StoreUrl } from './s3-url';

/** The settings a client is made from, read from the environment (`AWS_*`; see docs/operations.md). */
export interface ObjectStoreSettings {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

/** Keys from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN); absent: the SDK's own chain (profiles, instance roles). */
interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

function credentialsOf(env: NodeJS.ProcessEnv): Credentials | undefined {
  if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) return undefined;
  return { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

export function storeSettings(env: NodeJS.ProcessEnv = process.env): ObjectStoreSettings {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const pathStyle = env.AWS_S3_FORCE_PATH_STYLE?.toLowerCase();
  // S3-compatible servers of one's own (MinIO, Ceph, moto) are addressed by path; AWS itself by virtual host.
  const forcePathStyle = pathStyle === undefined || pathStyle === '' ? !!endpoint : pathStyle === 'true' || pathStyle === '1';
  return { endpoint, region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1', forcePathStyle };
}

/** An endpoint as it may be shown: without any user or password a URL might carry. */
function shownEndpoint(endpoint: string | undefined): string {
  if (!endpoint) return 'AWS S3';
  try {
    const u = new URL(endpoint);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(AWS_ENDPOINT_URL is not a URL)';
  }
}

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  errors?: { code?: string }[];
}

const DENIED = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken', 'CredentialsProviderError', 'AuthorizationHeaderMalformed']);
const NETWORK = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError', 'RequestTimeout']);

/** The S3 error name or network error code of a failed call. */
function errorName(e: unknown): string {
  const err = e as SdkError;
  return err.code ?? err.errors?.[0]?.code ?? err.name ?? 'Error';
}

const statusOf = (e: unknown) => (e as SdkError).$metadata?.httpStatusCode;

/** Someone else wrote the object first (412), or a conditional write raced another (409: look again). */
const isPreconditionFailed = (e: unknown) => statusOf(e) === 412 || errorName(e) === 'PreconditionFailed';
const isConditionalConflict = (e: unknown) => statusOf(e) === 409 && errorName(e) === 'ConditionalRequestConflict';
const isMissingKey = (e: unknown) => errorName(e) === 'NoSuchKey' || (statusOf(e) === 404 && errorName(e) !== 'NoSuchBucket');

/** A failed call as the user must read it: what to check, which URL, and no secret. */
export function objectStoreError(e: unknown, url: string, settings: ObjectStoreSettings, doing: string): GymError {
  const name = errorName(e);
  const status = statusOf(e);
  const where = `--store ${url} (endpoint ${shownEndpoint(settings.endpoint)})`;
  if (name === 'NoSuchBucket' || (doing === 'check the bucket' && status === 404)) {
    return new GymError('NOT_FOUND', `the bucket of ${where} does not exist: create it, or name another bucket in --store`);
  }
  if (DENIED.has(name) || status === 403 || status === 401) {
    return new GymError('SETUP_FAILED', `the object store refused this process's credentials for ${where} (${name}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)`);
  }
  if (NETWORK.has(name) || (e as Error)?.message?.includes('connect')) {
    return new GymError('UNREACHABLE', `the object store of ${where} cannot be reached (${name}): check AWS_ENDPOINT_URL and that the server is up`);
  }
  return new GymError('UNREACHABLE', `the object store of ${where} failed to ${doing} (${name}${status ? `, HTTP ${status}` : ''})`);
}

/** The SDK, loaded on first use: a run without an object store never pays for loading it (~170 ms). */
let sdk: Promise<typeof S3> | undefined;
const loadSdk = () => (sdk ??= import('@aws-sdk/client-s3'));

/** One client per endpoint settings in a process: it holds the connection pool. */
const clients = new Map<string, S3.S3Client>();

function clientFor(s3: typeof S3, settings: ObjectStoreSettings, credentials: Credentials | undefined): S3.S3Client {
  // Keyed by a hash of the keys, so no secret is kept as a map key.
  const key = JSON.stringify([settings, credentials && createHash('sha256').update(JSON.stringify(credentials)).digest('hex')]);
  let client = clients.get(key);
  if (!client) {
    // The SDK warns once on stderr about Node versions it will stop supporting in 2027; that is not the user's news.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const config: S3.S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      maxAttempts: 4,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    };
    client = new s3.S3Client(config);
    clients.set(key, client);
  }
  return client;
}

/** The objects of one run (or a campaign's root): keys are names inside it, such as `results/rollouts/<id>.json`. */
export class ObjectStore {
  readonly location: StoreUrl;
  readonly settings: ObjectStoreSettings;
  private readonly credentials: Credentials | undefined;

  constructor(
    readonly url: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.location = parseStoreUrl(url);
    this.settings = storeSettings(env);
    this.credentials = credentialsOf(env);
  }

  /** The SDK's command classes and this store's client, once the SDK is loaded. */
  private async sdk(): Promise<{ s3: typeof S3; client: S3.S3Client }> {
    const s3 = await loadSdk();
    return { s3, client: clientFor(s3, this.settings, this.credentials) };
  }

  private key(name: string): string {
    return objectKey(this.location, name);
  }

  private async call<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw objectStoreError(e, this.url, this.settings, doing);
    }
  }

  /** Checks the bucket is there and these credentials may use it: a clear error before a run starts, not mid-run. */
  async check(): Promise<void> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    await this.call('check the bucket', () => client.send(new s3.HeadBucketCommand({ Bucket: this.location.bucket })));
  }

  /** The object's text, or undefined when there is none. */
  async get(name: string): Promise<string | undefined> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    try {
      const out = await client.send(new s3.GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(name) }));
      return await out.Body!.transformToString('utf8');
    } catch (e) {
      if (isMissingKey(e)) return undefined;
      throw objectStoreError(e, this.url, this.settings, `read ${name}`);
    }
  }

  async exists(name: string): Promise<boolean> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    try {
      await client.send(new s3.HeadObjectCommand({ Bucket: this.location.bucket, Key: this.key(name) }));
      return true;
    } catch (e) {
      if (isMissingKey(e)) return false;
      throw objectStoreError(e, this.url, this.settings, `look at ${name}`);
    }
  }

  async getBytes(name: string): Promise<Uint8Array | undefined> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    try {
      const out = await client.send(new s3.GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(name) }));
      return await out.Body!.transformToByteArray();
    } catch (e) {
      if (isMissingKey(e)) return undefined;
      throw objectStoreError(e, this.url, this.settings, `read ${name}`);
    }
  }

  /** Writes or replaces an object (whole; readers see the old one or the new). */
  async put(name: string, body: string | Uint8Array): Promise<void> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    await this.call(`write ${name}`, () => client.send(new s3.PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(name), Body: body })));
  }

  /** Writes the object only if there is none yet (If-None-Match: *); false when another writer was first. */
  async putIfAbsent(name: string, body: string | Uint8Array): Promise<boolean> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    for (let attempt = 1; ; attempt++) {
      try {
        await client.send(new s3.PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(name), Body: body, IfNoneMatch: '*' }));
        return true;
      } catch (e) {
        if (isPreconditionFailed(e)) return false;
        // Two conditional writes of one key in flight at once: the store tells one to try again.
        if (isConditionalConflict(e) && attempt < 5) continue;
        throw objectStoreError(e, this.url, this.settings, `write ${name}`);
      }
    }
  }

  /** The names (inside this store's prefix) of every object under `dir/`, in key order. */
  async list(dir: string): Promise<string[]> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    const base = this.key('');
    const prefix = dir === '' ? base : this.key(dir.endsWith('/') ? dir : `${dir}/`);
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(`list ${dir}`, () => client.send(new s3.ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) names.push(o.Key.slice(base.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }

  /** The names of the objects directly inside the store's prefix (the run's top-level files), not those in folders. */
  async listFiles(): Promise<string[]> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    const base = this.key('');
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('list the run', () => client.send(new s3.ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: base, Delimiter: '/', ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) names.push(o.Key.slice(base.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }

  async remove(name: string): Promise<void> {
    const { s3, client } = await this.call('load the S3 client', () => this.sdk());
    await this.call(`remove ${name}`, () => client.send(new s3.DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.key(name) })));
  }
}

/** The store of a run's URL, one per URL in a process. */
const stores = new Map<string, ObjectStore>();
export function objectStore(url: string): ObjectStore {
  let store = stores.get(url);
  if (!store) stores.set(url, (store = new ObjectStore(url)));
  return store;
}
