// A NeMo Gym configuration whose policy model server is switchyard_model becomes a `switchyard` model spec
// (hosted from `deployment`, or attached at `switchyard_base_url`, which wins as in NeMo Gym), and the
// flag form and --model-spec files are checked with the flag or file and field named.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { configRunFlags } from '../../src/cli/commands/eval-run-config';
import type { ConfigRun } from '../../src/routing/from-config';

const MCQA = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');
const serverRun = (config: Record<string, unknown>) => ({ keys: {}, modelServer: { name: 'policy_model', implementation: 'switchyard_model', config } }) as unknown as ConfigRun;

async function outDir(): Promise<string> {
  return path.join(await mkdtemp(path.join(os.tmpdir(), 'switchyard-config-')), 'run');
}

describe('switchyard models from configuration and flags', () => {
  it("maps NeMo Gym's switchyard_model: hosted from deployment, attached when a base URL is set", async () => {
    const hosted = configRunFlags(serverRun({ switchyard_model: 'routed', deployment: '/abs/routes.toml', session_id_headers: ['x-switchyard-session-id', 'proxy_x_session_id'] }));
    expect(hosted).toEqual({
      model: 'switchyard',
      'model-name': 'routed',
      'switchyard-deployment': '/abs/routes.toml',
      'switchyard-session-header': ['x-switchyard-session-id', 'proxy_x_session_id'],
    });
    const attached = configRunFlags(serverRun({ switchyard_model: 'routed', deployment: '/abs/routes.toml', switchyard_base_url: 'http://127.0.0.1:4000/v1' }));
    expect(attached).toEqual({ model: 'switchyard', 'model-name': 'routed', 'model-url': 'http://127.0.0.1:4000/v1' });
    const config = buildRunConfig({ ...hosted, env: 'mcqa', input: MCQA, output: await outDir() });
    expect(config.model).toMatchObject({
      backend: 'switchyard',
      model: 'routed',
      deployment: '/abs/routes.toml',
      session_id_headers: ['x-switchyard-session-id', 'proxy_x_session_id'],
      forward_session_id: true,
    });
  });

  it('refuses the flag form without a route or with both a deployment and a URL', async () => {
    const base = { env: 'mcqa', input: MCQA, output: await outDir(), model: 'switchyard' };
    expect(() => buildRunConfig({ ...base, 'switchyard-deployment': 'r.toml' })).toThrow('--model switchyard needs --model-name');
    expect(() => buildRunConfig({ ...base, 'model-name': 'r', 'switchyard-deployment': 'r.toml', 'model-url': 'http://x/v1' })).toThrow('one of the two');
    expect(() => buildRunConfig({ ...base, 'model-name': 'r', 'switchyard-deployment': 'r.toml', 'switchyard-session-header': ['bad header'] })).toThrow(/session_id_headers\.0: an HTTP header name/);
  });

  it('reads a --model-spec file, its paths from its folder, a mock target defaulting to the run', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-spec-'));
    const file = path.join(dir, 'spec.yaml');
    const output = await outDir();
    await writeFile(file, 'backend: routed\nstrategy: { type: fixed, target: sy }\ntargets:\n  sy: { backend: switchyard, model: fixed, deployment: routes.toml }\n  m: { backend: mock }\n');
    const config = buildRunConfig({ env: 'mcqa', input: MCQA, output, 'model-spec': file });
    expect(config.model).toMatchObject({ backend: 'routed', targets: { sy: { deployment: path.join(dir, 'routes.toml') }, m: { env: 'mcqa', tasks_file: path.join(output, 'tasks.jsonl') } } });
    await writeFile(file, 'backend: routed\nstrategy: { type: fixed, target: gone }\ntargets: { m: { backend: mock } }\n');
    expect(() => buildRunConfig({ env: 'mcqa', input: MCQA, output, 'model-spec': file })).toThrow(`--model-spec: ${file}: strategy.target: "gone" is not one of the targets (m)`);
  });
});
