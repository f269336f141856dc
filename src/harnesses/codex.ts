// Codex (@openai/codex): a Rust binary that speaks only the Responses API; `exec --json` headless with a
// provider whose env_key names the key's variable, hosted web search and its own sandbox off.
import { jsonLines, textReport, toolCall } from './report';
import type { HarnessAdapter, HarnessReport } from './types';

const KEY_ENV = 'GYMFLOW_GATEWAY_KEY';

function toml(value: string): string {
  return JSON.stringify(value);
}

/** `--json` prints thread/turn/item events; a command_execution or file_change item is a tool call. */
function report(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const toolCalls = [];
  let finalText = '';
  for (const event of events) {
    const item = event.item;
    if (event.type !== 'item.completed' || !item) continue;
    if (item.type === 'agent_message') finalText = String(item.text ?? '');
    else if (item.type === 'command_execution') toolCalls.push(toolCall('exec_command', { cmd: item.command }, item.aggregated_output));
    else if (item.type === 'file_change' || item.type === 'mcp_tool_call') toolCalls.push(toolCall(item.type, item.changes ?? item.arguments));
  }
  return { finalText, toolCalls };
}

export const codex: HarnessAdapter = {
  name: 'codex',
  install: { package: { name: '@openai/codex', version: '0.171.0' }, bin: 'codex' },
  api: 'responses',
  trainable: true,
  invocation(input) {
    const codexHome = `${input.home}/.codex`;
    const config = [
      `model = ${toml(input.model)}`,
      'model_provider = "gw"',
      'check_for_update_on_startup = false',
      '[model_providers.gw]',
      'name = "gw"',
      `base_url = ${toml(input.baseUrl)}`,
      `env_key = ${toml(KEY_ENV)}`,
      'wire_api = "responses"',
      '[analytics]',
      'enabled = false',
      '[otel]',
      'exporter = "none"',
      '',
    ].join('\n');
    return {
      files: [{ path: `${codexHome}/config.toml`, content: config }],
      env: { CODEX_HOME: codexHome },
      args: ['exec', '--json', '--skip-git-repo-check', '--ephemeral', '--dangerously-bypass-approvals-and-sandbox', '-c', 'web_search="disabled"', input.prompt],
      keyEnv: KEY_ENV,
    };
  },
  report,
};
