// Claude Code (@anthropic-ai/claude-code): speaks only Anthropic Messages, to ANTHROPIC_BASE_URL (no
// /v1); `-p --output-format stream-json` headless, nonessential traffic, updater and telemetry off.
import { jsonLines, textReport, toolCall } from './report';
import type { HarnessAdapter, HarnessReport } from './types';

/** stream-json prints assistant messages (tool_use blocks), user messages (tool_result blocks) and a result. */
function report(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const calls = new Map<string, ReturnType<typeof toolCall>>();
  let finalText = '';
  for (const event of events) {
    for (const block of event.message?.content ?? []) {
      if (block?.type === 'tool_use') calls.set(String(block.id), toolCall(block.name, block.input));
      if (block?.type === 'tool_result' && calls.has(String(block.tool_use_id))) {
        const known = calls.get(String(block.tool_use_id))!;
        calls.set(String(block.tool_use_id), { ...known, output: typeof block.content === 'string' ? block.content : JSON.stringify(block.content) });
      }
    }
    if (event.type === 'result' && typeof event.result === 'string') finalText = event.result;
  }
  return { finalText, toolCalls: [...calls.values()] };
}

export const claudeCode: HarnessAdapter = {
  name: 'claude-code',
  install: { package: { name: '@anthropic-ai/claude-code', version: '2.1.332' }, bin: 'claude' },
  api: 'messages',
  trainable: true,
  takesSystemPrompt: true,
  invocation(input) {
    return {
      files: [],
      env: {
        ANTHROPIC_BASE_URL: input.baseUrl.replace(/\/v1\/?$/, ''),
        // As root, --dangerously-skip-permissions is refused unless the CLI is told it is sandboxed.
        IS_SANDBOX: '1',
        CLAUDE_CONFIG_DIR: `${input.home}/.claude`,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
      args: [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--model',
        input.model,
        '--dangerously-skip-permissions',
        ...(input.systemPrompt ? ['--append-system-prompt', input.systemPrompt] : []),
        input.prompt,
      ],
      keyEnv: 'ANTHROPIC_API_KEY',
    };
  },
  report,
};
