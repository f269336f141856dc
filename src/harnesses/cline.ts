// Cline (cline): evaluation-only. Its provider settings file must hold the key itself, and `--yolo`
// ends a turn only on submit_and_exit; the hub daemon is kept from starting by the local session backend.
import { jsonLines, textReport, toolCall } from './report';
import { KEY_IN_FILE, type HarnessAdapter, type HarnessReport } from './types';

/**
 * `--json` prints `agent_event` lines: a tool call opens with `content_start` (contentType tool, its
 * input) and closes with `content_end` (its output); `run_result` ends the run.
 */
function report(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const calls = new Map<string, ReturnType<typeof toolCall>>();
  let finalText = '';
  for (const event of events) {
    const e = event.event ?? {};
    if (e.contentType === 'tool' && e.type === 'content_start') calls.set(String(e.toolCallId), toolCall(e.toolName, e.input));
    if (e.contentType === 'tool' && e.type === 'content_end') {
      const known = calls.get(String(e.toolCallId)) ?? toolCall(e.toolName, {});
      calls.set(String(e.toolCallId), { ...known, ...(e.output === undefined ? {} : { output: typeof e.output === 'string' ? e.output : JSON.stringify(e.output) }) });
    }
    if (e.type === 'done' && typeof e.text === 'string') finalText = e.text;
    if (event.type === 'run_result' && typeof event.text === 'string') finalText = event.text;
  }
  return { finalText, toolCalls: [...calls.values()] };
}

export const cline: HarnessAdapter = {
  name: 'cline',
  install: { package: { name: 'cline', version: '3.0.65' }, bin: 'cline' },
  api: 'chat',
  // Its requests are re-shaped between calls (compaction, re-prompts), so its calls do not form one token lineage.
  trainable: false,
  invocation(input) {
    const settings = `${input.home}/.cline/data/settings`;
    // The shape `cline auth` writes: without `updatedAt` and `tokenSource` the entry is dropped and
    // cline falls back to its own hosted provider (api.cline.bot), which the sandbox cannot reach.
    const entry = { settings: { provider: 'openai-compatible', apiKey: KEY_IN_FILE, model: input.model, baseUrl: input.baseUrl }, updatedAt: '1970-01-01T00:00:00.000Z', tokenSource: 'manual' };
    const providers = { version: 1, lastUsedProvider: 'openai-compatible', modes: {}, providers: { 'openai-compatible': entry } };
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
