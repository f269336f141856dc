// The FAKE vllm's entry point: vLLM's `serve` command line read, the fake server started on its port
// until SIGTERM. FAKE_VLLM_LATENCY_MS slows each generation so a test can stop a job mid-run.
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';

register();
const { startFakeVLLM } = await import('../fake-vllm-server.ts');
const [command, ...rest] = process.argv.slice(2);
if (command !== 'serve') {
  process.stderr.write(`fake vllm: only "serve" is faked, got ${JSON.stringify(command)}\n`);
  process.exit(2);
}
// vLLM's other flags (--served-model-name, --max-model-len…) are taken and ignored.
const { values, positionals } = parseArgs({ args: rest, options: { host: { type: 'string' }, port: { type: 'string' } }, strict: false, allowPositionals: true });
const server = await startFakeVLLM({ host: String(values.host ?? '0.0.0.0'), port: Number(values.port ?? 8000), latencyMs: Number(process.env.FAKE_VLLM_LATENCY_MS ?? 0) });
process.stdout.write(`fake vllm serving ${positionals[0] ?? '(no model)'} at ${server.url} (args: ${rest.join(' ')})\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
