// The connection settings Gymflow reads from TEMPORAL_* variables, and how a failed connection is told:
// pure functions here; against a real locked-down server in tests/e2e/secured-cluster.test.ts.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { describeTlsFailure, grpcStatusOf, namespaceError, refusalError, speaksTls } from '../../src/temporal/connect-errors';
import { temporalSettingsFromEnv } from '../../src/temporal/connection';

const refused = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });
const target = { address: 'temporal.example:7233', namespace: 'evals' };

describe('temporalSettingsFromEnv', () => {
  it('is the embedded server when no address is set', () => {
    expect(temporalSettingsFromEnv({})).toEqual({ address: '127.0.0.1:7233', namespace: 'default', embedded: true, tls: undefined, apiKeyEnv: undefined });
  });

  it('turns TLS on for any TLS variable, and carries the files and the server name', () => {
    const env = {
      TEMPORAL_ADDRESS: 'h:7233',
      TEMPORAL_NAMESPACE: 'evals',
      TEMPORAL_TLS_CERT: '/c.pem',
      TEMPORAL_TLS_KEY: '/k.pem',
      TEMPORAL_TLS_CA: '/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    };
    expect(temporalSettingsFromEnv(env)).toEqual({
      address: 'h:7233',
      namespace: 'evals',
      embedded: false,
      tls: { certPath: '/c.pem', keyPath: '/k.pem', caPath: '/ca.pem', serverName: 'temporal.internal' },
      apiKeyEnv: undefined,
    });
    expect(temporalSettingsFromEnv({ TEMPORAL_TLS_SERVER_NAME: 'n' }).tls).toEqual({ serverName: 'n' });
    expect(temporalSettingsFromEnv({ TEMPORAL_TLS: 'true' }).tls).toEqual({});
  });

  it('names the API key by its variable, and TEMPORAL_TLS=false sends it without TLS', () => {
    expect(temporalSettingsFromEnv({ TEMPORAL_API_KEY: 'secret' })).toMatchObject({ tls: undefined, apiKeyEnv: 'TEMPORAL_API_KEY' });
    expect(JSON.stringify(temporalSettingsFromEnv({ TEMPORAL_API_KEY: 'secret' }))).not.toContain('secret');
    expect(temporalSettingsFromEnv({ TEMPORAL_API_KEY: 'secret', TEMPORAL_TLS: 'false' })).toMatchObject({ tls: false, apiKeyEnv: 'TEMPORAL_API_KEY' });
  });

  it('refuses settings that contradict each other, naming the variables', () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        temporalSettingsFromEnv(env);
      } catch (e) {
        expect(e).toBeInstanceOf(GymError);
        expect((e as GymError).code).toBe('BAD_FLAG');
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ TEMPORAL_TLS: 'yes' })).toMatch(/TEMPORAL_TLS must be true or false, got "yes"/);
    expect(bad({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: '/ca.pem' })).toMatch(/TEMPORAL_TLS=false, but TEMPORAL_TLS_CA is set/);
    expect(bad({ TEMPORAL_TLS_CERT: '/c.pem' })).toMatch(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/);
    expect(bad({ TEMPORAL_TLS_KEY: '/k.pem' })).toMatch(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/);
  });
});

describe('connection errors', () => {
  it("finds a gRPC status through the SDK's wrapping, and in the worker's text", () => {
    const wrapped = new Error('Failed to connect to Temporal server', { cause: refused(7, 'Request unauthorized.') });
    expect(grpcStatusOf(wrapped)).toEqual({ code: 7, details: 'Request unauthorized.' });
    expect(grpcStatusOf(new Error('Failed client connect: Status { code: PermissionDenied, message: "Request unauthorized.", details: [] }'))).toEqual({ code: 7, details: 'Request unauthorized.' });
    expect(grpcStatusOf(new Error('socket hang up'))).toBeUndefined();
  });

  it('tells a refused key from a missing one, and a missing namespace', () => {
    expect(refusalError({ ...target, apiKeyEnv: 'TEMPORAL_API_KEY' }, refused(7, 'Request unauthorized.'))?.message).toBe(
      'Temporal at temporal.example:7233 refused the API key in TEMPORAL_API_KEY for namespace "evals" (Request unauthorized): check that it is valid, not expired, and grants a role on that namespace',
    );
    expect(refusalError(target, refused(16, 'no token'))?.message).toMatch(/refused access to namespace "evals" \(no token\): it asks for an API key; set TEMPORAL_API_KEY/);
    expect(refusalError(target, refused(14, 'unavailable'))).toBeUndefined();
    const missing = namespaceError(target, refused(5, 'Namespace evals is not found.'));
    expect(missing?.code).toBe('NOT_FOUND');
    expect(missing?.message).toMatch(/has no namespace "evals" \(TEMPORAL_NAMESPACE\)/);
  });

  it('names the TLS setting that fixes a handshake failure', () => {
    const failure = (code: string, message: string, reason?: string) => Object.assign(new Error(message), { code, reason });
    expect(describeTlsFailure(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), { ca: Buffer.from('') }, 'h')).toMatch(/not signed by the CA in TEMPORAL_TLS_CA/);
    expect(describeTlsFailure(failure('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), {}, 'h')).toMatch(/not signed by this machine's trusted CAs/);
    expect(describeTlsFailure(failure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), {}, '10.0.0.1')).toMatch(
      /not for "10\.0\.0\.1".*set TEMPORAL_TLS_SERVER_NAME/,
    );
    const alert = failure(
      'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
      '80AC:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../rec_layer_s3.c:1601',
      'tlsv13 alert certificate required',
    );
    expect(describeTlsFailure(alert, {}, 'h')).toBe(
      'the server requires a client certificate (mutual TLS) and none was given (tlsv13 alert certificate required): set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY',
    );
    expect(describeTlsFailure(alert, { cert: Buffer.from('') }, 'h')).toMatch(/refused the client certificate in TEMPORAL_TLS_CERT/);
    expect(describeTlsFailure(failure('ERR_SSL_WRONG_VERSION_NUMBER', 'x', 'wrong version number'), {}, 'h')).toMatch(/does not speak TLS.*TEMPORAL_TLS=false/);
  });

  it('does not take a plaintext server for a TLS one', async () => {
    const server = net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      expect(await speaksTls(`127.0.0.1:${(server.address() as { port: number }).port}`)).toBe(false);
    } finally {
      server.close();
    }
  });
});
