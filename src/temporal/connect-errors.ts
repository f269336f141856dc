// Why a connection to a Temporal cluster failed, said so the user knows which setting to fix: an API key
// the server refused, a TLS handshake either side refused, a namespace that is not there, or no answer.
import net from 'node:net';
import tls from 'node:tls';
import { GymError } from '../errors';

// gRPC status codes (grpc/status.h).
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;

/** Where the connection's settings came from, for the messages. */
export interface ConnectTarget {
  address: string;
  namespace: string;
  /** The API key's variable, when one is set. */
  apiKeyEnv?: string;
}

/** The TLS material of a connection, read from its files (undefined: none given). */
export interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  serverName?: string;
}

/** The gRPC status code and message anywhere in an error's cause chain (the SDKs wrap them). */
export function grpcStatusOf(e: unknown): { code: number; details: string } | undefined {
  let x: unknown = e;
  for (let depth = 0; x instanceof Error && depth < 10; depth++, x = x.cause) {
    const { code, details } = x as { code?: unknown; details?: unknown };
    if (typeof code === 'number') return { code, details: typeof details === 'string' && details ? details : x.message };
  }
  // The worker's native connection reports a status only as text: `Status { code: PermissionDenied, message: "…" }`.
  const text = messagesOf(e);
  const native = /code: (PermissionDenied|Unauthenticated|NotFound|Unavailable), message: "([^"]*)"/.exec(text);
  if (native) return { code: { PermissionDenied: PERMISSION_DENIED, Unauthenticated: UNAUTHENTICATED, NotFound: NOT_FOUND, Unavailable: UNAVAILABLE }[native[1]!]!, details: native[2]! };
  return undefined;
}

function messagesOf(e: unknown): string {
  const parts: string[] = [];
  let x: unknown = e;
  for (let depth = 0; x instanceof Error && depth < 10; depth++, x = x.cause) parts.push(x.message);
  return parts.join(': ');
}

/** A refusal of the API key (or of its absence) as the CLI says it; undefined when `e` is no refusal. */
export function refusalError(target: ConnectTarget, e: unknown): GymError | undefined {
  const status = grpcStatusOf(e);
  if (status?.code !== PERMISSION_DENIED && status?.code !== UNAUTHENTICATED) return undefined;
  const why = status.details.replace(/\.$/, '');
  if (!target.apiKeyEnv) {
    return new GymError('SETUP_FAILED', `Temporal at ${target.address} refused access to namespace "${target.namespace}" (${why}): it asks for an API key; set TEMPORAL_API_KEY`);
  }
  return new GymError(
    'SETUP_FAILED',
    `Temporal at ${target.address} refused the API key in ${target.apiKeyEnv} for namespace "${target.namespace}" (${why}): check that it is valid, not expired, and grants a role on that namespace`,
  );
}

/** A namespace the server does not have. */
export function namespaceError(target: ConnectTarget, e: unknown): GymError | undefined {
  if (grpcStatusOf(e)?.code !== NOT_FOUND) return undefined;
  return new GymError(
    'NOT_FOUND',
    `Temporal at ${target.address} has no namespace "${target.namespace}" (TEMPORAL_NAMESPACE): create it (temporal operator namespace create ${target.namespace}) or name another`,
  );
}

/** `host:port`, or `[v6]:port`, apart. */
function hostPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

/** The TLS failure a handshake error stands for, naming the setting that fixes it. */
export function describeTlsFailure(e: NodeJS.ErrnoException & { reason?: string }, material: TlsMaterial, host: string): string {
  const code = e.code ?? '';
  // OpenSSL's errors carry their reason apart from the file and line of the library that raised them.
  const message = (e.reason ?? e.message).replace(/[\s:]+$/, '');
  const untrusted = [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_SIGNATURE_FAILURE',
  ];
  if (untrusted.includes(code)) {
    const trusted = material.ca ? 'the CA in TEMPORAL_TLS_CA' : "this machine's trusted CAs (TEMPORAL_TLS_CA names another)";
    return `the server's certificate is not signed by ${trusted} (${message})`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the server's certificate is not for "${material.serverName ?? host}" (${message}): set TEMPORAL_TLS_SERVER_NAME to the name it carries`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `the server's certificate is not valid now (${message})`;
  if (/certificate required|handshake failure|bad certificate|unknown ca|certificate unknown|access denied/i.test(message)) {
    if (!material.cert) return `the server requires a client certificate (mutual TLS) and none was given (${message}): set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY`;
    return `the server refused the client certificate in TEMPORAL_TLS_CERT (${message}): it must be signed by a CA the server trusts`;
  }
  if (/wrong version number|packet length too long|unknown protocol/i.test(message)) return `the server does not speak TLS (${message}): set TEMPORAL_TLS=false, or use its TLS port`;
  return `the TLS handshake failed (${message})`;
}

/**
 * Opens one TLS connection to the server the way the SDK's does (same CA, client certificate, server name,
 * and h2) and reports what went wrong, if anything did. The SDK's own error says only that it did not
 * connect in time. In TLS 1.3 the server judges the client's certificate after the client's side of the
 * handshake is done, so a refusal arrives as an alert shortly after; `settleMs` waits for it.
 */
export function diagnoseTls(address: string, material: TlsMaterial, settleMs = 1500, timeoutMs = 8000): Promise<string | undefined> {
  const { host, port } = hostPort(address);
  return new Promise((resolve) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const done = (why: string | undefined) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      socket.destroy();
      resolve(why);
    };
    const socket = tls.connect({
      host,
      port,
      ca: material.ca,
      cert: material.cert,
      key: material.key,
      // An IP address is no server name (TLS's SNI); node checks it against the certificate's IP entries.
      servername: material.serverName ?? (net.isIP(host) ? undefined : host),
      ALPNProtocols: ['h2'],
    });
    socket.once('secureConnect', () => timers.push(setTimeout(() => done(undefined), settleMs)));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      // No server at all is not a TLS problem: the caller says the server is unreachable.
      if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'].includes(e.code ?? '') && !socket.encrypted) return done(undefined);
      done(describeTlsFailure(e, material, host));
    });
    socket.once('close', () => done(undefined));
    timers.push(setTimeout(() => done(undefined), timeoutMs));
  });
}

/** Whether a server that a plaintext connection could not reach answers a TLS handshake (its certificate unchecked). */
export function speaksTls(address: string, timeoutMs = 5000): Promise<boolean> {
  const { host, port } = hostPort(address);
  return new Promise((resolve) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'], servername: net.isIP(host) ? undefined : host });
    const done = (yes: boolean) => (clearTimeout(timer), socket.destroy(), resolve(yes));
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('secureConnect', () => done(true));
    socket.once('close', () => done(false));
    // A TLS alert (a client certificate asked for) is TLS too; a plain socket error is not.
    socket.once('error', (e: NodeJS.ErrnoException) => done((e.code ?? '').startsWith('ERR_SSL_') && !/WRONG_VERSION_NUMBER|PACKET_LENGTH/.test(e.code ?? '')));
  });
}

/**
 * The error for a connection that could not be made: a refusal, a TLS failure, or else no answer. `who`
 * names the connecting side in the message ("a worker"); a client's is left unnamed.
 */
export async function connectFailure(target: ConnectTarget, e: unknown, material: TlsMaterial | undefined, who?: string): Promise<GymError> {
  const what = who ? ` ${who}` : '';
  const refused = refusalError(target, e);
  if (refused) return refused;
  if (material) {
    const why = await diagnoseTls(target.address, material);
    if (why) return new GymError('SETUP_FAILED', `cannot connect${what} to Temporal at ${target.address} over TLS: ${why}`);
  } else if (await speaksTls(target.address)) {
    return new GymError(
      'SETUP_FAILED',
      `cannot connect${what} to Temporal at ${target.address}: it speaks TLS and this connection does not; set TEMPORAL_TLS=true, and TEMPORAL_TLS_CA (and TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY) as it needs`,
    );
  }
  return new GymError('UNREACHABLE', `cannot connect${what} to Temporal at ${target.address}: ${messagesOf(e)}`);
}
