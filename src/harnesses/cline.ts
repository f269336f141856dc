// Cline (cline): evaluation-only. Its provider settings file must hold the key itself, and `--yolo`
// ends a turn only on submit_and_exit; the hub daemon is kept from starting by the local session backend.
import { jsonLines, textReport, toolCall } from './report';
import { KEY_IN_FILE, type HarnessAdapter, type HarnessReport } from './types';

function report(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const toolCalls = [];
  let finalText = '';
  for (const event of events) {
    const e = event.event ?? event;
    if (e.type === 'tool_call' || e.type === 'tool-call') toolCalls.push(toolCall(e.toolName ?? e.name, e.input ?? e.args));
    if (event.type === 'run_result') finalText = String(event.result ?? event.text ?? finalText);
  }
  return { finalText, toolCalls };
}

export const cline: HarnessAdapter = {
  name: 'cline',
  install: { package: { name: 'cline', version: '3.0.65' }, bin: 'cline' },
  api: 'chat',
  // Its requests are re-shaped between calls (compaction, re-prompts), so its calls do not form one token lineage.
  trainable: false,
  invocation(input) {
    const settings = `${input.home}/.cline/data/settings`;
    const providers = {
      version: 1,
      lastUsedProvider: 'openai-compatible',
      providers: { 'openai-compatible': { settings: { provider: 'openai-compatible', apiKey: KEY_IN_FILE, model: input.model, baseUrl: input.baseUrl } } },
    };
    return {
      files: [
        { path: `${settings}/providers.json`, content: JSON.stringify(providers) },
        { path: `${settings}/global-settings.json`, content: JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }) },
      ],
      env: { CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1' },
      args: ['--json', '--yolo', input.prompt],
      keyEnv: 'GYMFLOW_GATEWAY_KEY',
    };
  },
  report,
};
