// pi (@mariozechner/pi-coding-agent): pure Node, configured by a models.json provider entry whose
// apiKey names an environment variable; `-p` runs one prompt headless, `--mode json` prints its events.
import { jsonLines, textReport, toolCall } from './report';
import type { HarnessAdapter, HarnessReport } from './types';

function report(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const calls = new Map<string, ReturnType<typeof toolCall>>();
  let finalText = '';
  for (const event of events) {
    if (event.type === 'tool_execution_start') calls.set(String(event.toolCallId), toolCall(event.toolName, event.args));
    if (event.type === 'tool_execution_end') {
      const known = calls.get(String(event.toolCallId)) ?? toolCall(event.toolName, event.args);
      calls.set(String(event.toolCallId), { ...known, output: JSON.stringify(event.result ?? null) });
    }
    if (event.type === 'message_end' && event.message?.role === 'assistant') {
      const text = (event.message.content ?? [])
        .filter((c: any) => c.type === 'text')
        .map((c: any) => c.text)
        .join('');
      if (text) finalText = text;
    }
  }
  return { finalText, toolCalls: [...calls.values()] };
}

export const pi: HarnessAdapter = {
  name: 'pi',
  install: { package: { name: '@mariozechner/pi-coding-agent', version: '0.73.1' }, bin: 'pi' },
  api: 'chat',
  trainable: true,
  takesSystemPrompt: true,
  invocation(input) {
    const agentDir = `${input.home}/.pi/agent`;
    const models = {
      providers: {
        gw: {
          baseUrl: input.baseUrl,
          api: 'openai-completions',
          apiKey: 'GYMFLOW_GATEWAY_KEY',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: input.model, reasoning: false, contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    };
    return {
      files: [{ path: `${agentDir}/models.json`, content: JSON.stringify(models, null, 2) }],
      env: { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      args: ['-p', '--mode', 'json', '--provider', 'gw', '--model', input.model, '--no-session', ...(input.systemPrompt ? ['--append-system-prompt', input.systemPrompt] : []), input.prompt],
      keyEnv: 'GYMFLOW_GATEWAY_KEY',
    };
  },
  report,
};
