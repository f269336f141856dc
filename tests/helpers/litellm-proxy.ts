// A real LiteLLM proxy (PyPI litellm[proxy], the venv scripts/setup-litellm.sh makes) on a loopback port,
// serving one model name that it forwards to an OpenAI-compatible upstream. Started offline: no cost-map
// fetch, no telemetry.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServerProcess } from './server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface LiteLLMProxy {
  /** Base URL with /v1. */
  url: string;
  /** The key callers send (LiteLLM's master key). */
  masterKey: string;
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the proxy with `model_name` served by `upstreamModel` at `upstreamUrl` (OpenAI-compatible, with
 * /v1), the upstream's key read by LiteLLM from `upstreamKeyEnv`. Resolves once it answers its liveness probe.
 */
export async function startLiteLLMProxy(opts: { modelName: string; upstreamModel: string; upstreamUrl: string; upstreamKeyEnv: string }): Promise<LiteLLMProxy> {
  const { stdout } = await run('bash', [path.join(ROOT, 'scripts/setup-litellm.sh')], { timeout: 900_000 });
  const venv = stdout.trim().split('\n').at(-1)!;
  const dir = await mkdtemp(path.join(tmpdir(), 'gymflow-litellm-'));
  const config = path.join(dir, 'config.yaml');
  const masterKey = 'sk-litellm-test-master';
  await writeFile(
    config,
    [
      'model_list:',
      `  - model_name: ${opts.modelName}`,
      '    litellm_params:',
      `      model: openai/${opts.upstreamModel}`,
      `      api_base: ${opts.upstreamUrl}`,
      `      api_key: os.environ/${opts.upstreamKeyEnv}`,
      'general_settings:',
      `  master_key: ${masterKey}`,
      'litellm_settings:',
      '  telemetry: false',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    name: 'the LiteLLM proxy',
    command: path.join(venv, 'bin', 'litellm'),
    args: ['--config', config, '--host', '127.0.0.1', '--port', String(port), '--num_workers', '1'],
    env: { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: 'True', LITELLM_TELEMETRY: 'False', NO_DOCKER: 'True', PYTHONUNBUFFERED: '1' },
    ready: async () => (await fetch(`${url}/health/liveliness`)).ok,
    timeoutMs: 180_000,
    pollMs: 250,
  });
  return {
    url: `${url}/v1`,
    masterKey,
    output: server.output,
    async close() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
