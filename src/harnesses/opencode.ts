// opencode (opencode-ai): a Bun binary from npm; `run --pure` headless with the gateway as an
// OpenAI-compatible provider, every network side trip (models.dev, LSP downloads, share) switched off.
import { openAiCompatibleConfig, opencodeReport } from './opencode-config';
import type { HarnessAdapter } from './types';

const KEY_ENV = 'GYMFLOW_GATEWAY_KEY';

export const opencode: HarnessAdapter = {
  name: 'opencode',
  install: { package: { name: 'opencode-ai', version: '1.18.33' }, bin: 'opencode' },
  api: 'chat',
  trainable: true,
  invocation(input) {
    const config = `${input.home}/opencode.json`;
    return {
      files: [{ path: config, content: openAiCompatibleConfig(input, 'https://opencode.ai/config.json', KEY_ENV) }],
      env: {
        OPENCODE_CONFIG: config,
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_SHARE: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      },
      // -m always: a model remembered in HOME would otherwise win over the config's.
      args: ['run', '--pure', '--format', 'json', '-m', `gw/${input.model}`, input.prompt],
      keyEnv: KEY_ENV,
    };
  },
  report: opencodeReport,
};
