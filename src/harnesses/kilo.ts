// Kilo Code (@kilocode/cli, an opencode fork), pinned to 7.7.7: 7.8.1's platform binary is missing from
// the registry. opencode's configuration under KILO_ names, with its PostHog telemetry turned off.
import { openAiCompatibleConfig, opencodeReport } from './opencode-config';
import type { HarnessAdapter } from './types';

const KEY_ENV = 'GYMFLOW_GATEWAY_KEY';

export const kilo: HarnessAdapter = {
  name: 'kilo',
  install: { package: { name: '@kilocode/cli', version: '7.7.7' }, bin: 'kilo' },
  api: 'chat',
  trainable: true,
  invocation(input) {
    const config = `${input.home}/kilo.json`;
    return {
      files: [{ path: config, content: openAiCompatibleConfig(input, 'https://app.kilo.ai/config.json', KEY_ENV) }],
      env: {
        KILO_CONFIG: config,
        KILO_TELEMETRY_LEVEL: 'off',
        KILO_DISABLE_AUTOUPDATE: '1',
        KILO_DISABLE_MODELS_FETCH: '1',
        KILO_DISABLE_LSP_DOWNLOAD: '1',
        KILO_DISABLE_SHARE: '1',
        KILO_DISABLE_SESSION_INGEST: '1',
        KILO_DISABLE_DEFAULT_PLUGINS: '1',
        KILO_NO_DAEMON: '1',
      },
      args: ['run', '--pure', '--format', 'json', '-m', `gw/${input.model}`, input.prompt],
      keyEnv: KEY_ENV,
    };
  },
  report: opencodeReport,
};
