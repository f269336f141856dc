// Gymflow on a Temporal cluster that is locked down like a production one (tests/helpers/secured-temporal.ts:
// the real server, mutual TLS with a test CA, API keys checked by its default JWT authorizer): `gym eval run`
// reaches it by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_* and TEMPORAL_API_KEY alone, registers its
// search attributes in a fresh namespace, and finishes the run; each wrong setting is refused with a message
// naming it; and the key is in no file, log line or workflow history. Without TLS, a key alone does as well.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { expectFaultInvariants } from '../helpers/fault-invariants';
import { filesUnder } from '../helpers/files';
import { gym, type GymResult } from '../helpers/gym-cli';
import { SERVER_NAME, startSecuredTemporal, type SecuredTemporal } from '../helpers/secured-temporal';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';

const MCQA = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const TASKS = readFileSync(MCQA, 'utf8').split('\n').filter(Boolean).length;
const REPEATS = 2;
const NAMESPACE = 'gymflow-tls';
// The server's binary may still be compiling in CI's background setup (or be built here): minutes.
const SERVER_START_MS = 1_800_000;
const EVAL_MS = 240_000;

/** Every Temporal variable a developer's shell might hold, unset unless a test sets it. */
const UNSET = Object.fromEntries(
  ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TLS', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_NAME', 'TEMPORAL_API_KEY'].map((k) => [k, undefined]),
);

function evalRun(out: string, env: Record<string, string | undefined>): Promise<GymResult> {
  const args = ['eval', 'run', '--env', 'mcqa', '--model', 'mock', '--mock-accuracy', '0.7', '--input', MCQA, '--output', out, '--num-repeats', String(REPEATS)];
  return gym(args, env, { timeoutMs: EVAL_MS });
}

/** A refusal as the user sees it: the exit status, one line naming the problem, no stack trace and no key. */
function expectRefused(expect: ExpectStatic, r: GymResult, status: number, problem: RegExp, secrets: string[]): void {
  const output = `${r.stdout}${r.stderr}`;
  expect(r.code, output).toBe(status);
  expect(r.stderr).toMatch(problem);
  expect(r.stderr, 'a stack trace').not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toMatch(/unexpected error/);
  for (const s of secrets) expect(output.includes(s), 'the API key in the output').toBe(false);
}

let home = '';
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'gymflow-secured-'));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('a Temporal cluster with mutual TLS and API keys', () => {
  let server: SecuredTemporal;
  let key = '';
  let env: Record<string, string | undefined> = {};

  beforeAll(async () => {
    server = await startSecuredTemporal();
    await server.createNamespace(NAMESPACE);
    // A namespace admin, not a system one: enough to register search attributes in it and run there.
    key = server.apiKey([`${NAMESPACE}:admin`]);
    const tls = server.tls!;
    env = {
      ...UNSET,
      GYMFLOW_HOME: home,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TLS_CERT: tls.clientCert,
      TEMPORAL_TLS_KEY: tls.clientKey,
      TEMPORAL_TLS_CA: tls.ca,
      TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
      TEMPORAL_API_KEY: key,
    };
  }, SERVER_START_MS);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('runs an eval there, with its search attributes, and the key in no file, log or history', async () => {
    const out = path.join(home, 'tls-run');
    // Debug logging: every line the CLI and its worker log is checked for the key.
    const r = await evalRun(out, { ...env, GYMFLOW_LOG_LEVEL: 'debug' });
    expect(r.code, `${r.stdout}\n${r.stderr.slice(-4000)}\n${server.log().slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`rollouts: ${TASKS * REPEATS}/${TASKS * REPEATS} recorded, 0 failed`));
    const { records } = await expectFaultInvariants(out, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
    expect(records).toHaveLength(TASKS * REPEATS);

    // The run is in that namespace, found through Gymflow's search attributes.
    const list = await gym(['eval', 'list', '--json', '--env', 'mcqa', '--status', 'completed'], env);
    expect(list.code, list.stderr).toBe(0);
    const runs = JSON.parse(list.stdout) as { run: string }[];
    expect(runs.map((x) => x.run)).toEqual([expect.stringMatching(/^tls-run-/)]);
    const client = await server.client(key, NAMESPACE);
    const attributes = await client.connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
    expect(Object.keys(attributes.customAttributes ?? {})).toEqual(expect.arrayContaining(SEARCH_ATTRIBUTES.map((k) => k.name)));

    // Every workflow history of the run, through the CLI (into the run folder) and straight from the server.
    const history = await gym(['eval', 'history', out], env);
    expect(history.code, history.stderr).toBe(0);
    const histories: string[] = [];
    for await (const w of client.workflow.list({ query: '' })) histories.push(JSON.stringify(await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()));
    expect(histories.length).toBeGreaterThan(1);

    const signature = key.split('.')[2]!;
    const leaks = (text: string) => text.includes(key) || text.includes(signature);
    for (const file of filesUnder(out)) expect(leaks(readFileSync(file, 'latin1')), `the API key in ${path.relative(out, file)}`).toBe(false);
    expect(filesUnder(out).some((f) => f.includes(`${path.sep}histories${path.sep}`))).toBe(true);
    for (const text of [r.stdout, r.stderr, list.stdout, list.stderr, history.stdout, history.stderr]) expect(leaks(text), 'the API key in the output').toBe(false);
    for (const h of histories) expect(leaks(h), 'the API key in a workflow history').toBe(false);
  });

  it('runs with a key that may only write in the namespace, once the search attributes are there', async () => {
    const writer = server.apiKey([`${NAMESPACE}:write`]);
    const out = path.join(home, 'tls-writer');
    const r = await evalRun(out, { ...env, TEMPORAL_API_KEY: writer });
    expect(r.code, `${r.stdout}\n${r.stderr.slice(-4000)}`).toBe(0);
    await expectFaultInvariants(out, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
  });

  it('refuses a missing API key', async () => {
    expectRefused(expect, await evalRun(path.join(home, 'no-key'), { ...env, TEMPORAL_API_KEY: undefined }), 7, /refused access to namespace "gymflow-tls".*set TEMPORAL_API_KEY/, [key]);
  });

  it('refuses a forged API key', async () => {
    const forged = server.forgedApiKey([`${NAMESPACE}:admin`]);
    expectRefused(expect, await evalRun(path.join(home, 'forged'), { ...env, TEMPORAL_API_KEY: forged }), 7, /refused the API key in TEMPORAL_API_KEY/, [forged, forged.split('.')[2]!]);
  });

  it('refuses a key for another namespace, and names a namespace the server does not have', async () => {
    const other = server.apiKey(['elsewhere:admin']);
    expectRefused(expect, await evalRun(path.join(home, 'other-ns'), { ...env, TEMPORAL_API_KEY: other }), 7, /refused the API key in TEMPORAL_API_KEY for namespace "gymflow-tls"/, [other]);
    expectRefused(
      expect,
      await evalRun(path.join(home, 'missing-ns'), { ...env, TEMPORAL_NAMESPACE: 'elsewhere', TEMPORAL_API_KEY: other }),
      4,
      /has no namespace "elsewhere" \(TEMPORAL_NAMESPACE\)/,
      [other],
    );
  });

  // Each of these waits out the SDK's 10 s connect timeout before its handshake is diagnosed: they run at once.
  describe.concurrent('refusals of TLS settings', () => {
    it('refuses a client without a client certificate', async ({ expect }) => {
      const r = await evalRun(path.join(home, 'no-cert'), { ...env, TEMPORAL_TLS_CERT: undefined, TEMPORAL_TLS_KEY: undefined });
      expectRefused(expect, r, 7, /over TLS: the server requires a client certificate \(mutual TLS\).*set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/, [key]);
    });

    it("refuses a server whose certificate the client's CA did not sign", async ({ expect }) => {
      const r = await evalRun(path.join(home, 'wrong-ca'), { ...env, TEMPORAL_TLS_CA: server.tls!.otherCa });
      expectRefused(expect, r, 7, /over TLS: the server's certificate is not signed by the CA in TEMPORAL_TLS_CA/, [key]);
    });

    it('refuses a server certificate for another name than the one dialled: TEMPORAL_TLS_SERVER_NAME must say it', async ({ expect }) => {
      const r = await evalRun(path.join(home, 'no-server-name'), { ...env, TEMPORAL_TLS_SERVER_NAME: undefined });
      expectRefused(expect, r, 7, /the server's certificate is not for "127\.0\.0\.1".*set TEMPORAL_TLS_SERVER_NAME/, [key]);
    });

    it('tells a plaintext client that the server speaks TLS', async ({ expect }) => {
      const plain = { ...env, TEMPORAL_TLS: 'false', TEMPORAL_TLS_CERT: undefined, TEMPORAL_TLS_KEY: undefined, TEMPORAL_TLS_CA: undefined, TEMPORAL_TLS_SERVER_NAME: undefined };
      expectRefused(expect, await evalRun(path.join(home, 'plaintext'), plain), 7, /it speaks TLS and this connection does not; set TEMPORAL_TLS=true/, [key]);
    });
  });
});

describe('a Temporal cluster with API keys over a plaintext connection', () => {
  let server: SecuredTemporal;
  let env: Record<string, string | undefined> = {};
  let key = '';

  beforeAll(async () => {
    server = await startSecuredTemporal({ mtls: false });
    await server.createNamespace(NAMESPACE);
    key = server.apiKey([`${NAMESPACE}:admin`]);
    // An API key alone means TLS (as Temporal Cloud wants); TEMPORAL_TLS=false sends it in the clear.
    env = { ...UNSET, GYMFLOW_HOME: home, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: NAMESPACE, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: key };
  }, SERVER_START_MS);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('runs an eval with TEMPORAL_TLS=false and the key', async () => {
    const out = path.join(home, 'plain-run');
    const r = await evalRun(out, env);
    expect(r.code, `${r.stdout}\n${r.stderr.slice(-4000)}\n${server.log().slice(-3000)}`).toBe(0);
    await expectFaultInvariants(out, { tasks: TASKS, repeats: REPEATS, env: 'mcqa' });
  });

  it('refuses a missing key, and a TLS connection to the plaintext server', async () => {
    expectRefused(expect, await evalRun(path.join(home, 'plain-no-key'), { ...env, TEMPORAL_API_KEY: undefined }), 7, /asks for an API key; set TEMPORAL_API_KEY/, [key]);
    expectRefused(expect, await evalRun(path.join(home, 'plain-tls'), { ...env, TEMPORAL_TLS: undefined }), 7, /over TLS: the server does not speak TLS/, [key]);
  });
});
