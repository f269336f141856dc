// The configuration opencode and its fork kilo share: one OpenAI-compatible provider at the gateway,
// edits and shell allowed without asking, web fetches denied; and their `--format json` event reader.
import { jsonLines, textReport, toolCall } from './report';
import type { HarnessReport, HarnessRunInput } from './types';

export function openAiCompatibleConfig(input: HarnessRunInput, schema: string, keyEnv: string): string {
  return JSON.stringify(
    {
      $schema: schema,
      provider: {
        gw: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Gateway',
          options: { baseURL: input.baseUrl, apiKey: `{env:${keyEnv}}` },
          models: { [input.model]: { name: input.model, tool_call: true } },
        },
      },
      model: `gw/${input.model}`,
      // Only the gateway: kilo otherwise waits on model-list fetches for its own hosted providers.
      enabled_providers: ['gw'],
      small_model: `gw/${input.model}`,
      autoupdate: false,
      share: 'disabled',
      permission: { edit: 'allow', bash: 'allow', webfetch: 'deny' },
    },
    null,
    2,
  );
}

/** `run --format json` prints one event per line: tool_use parts with their state, text parts. */
export function opencodeReport(stdout: string): HarnessReport {
  const events = jsonLines(stdout);
  if (events.length === 0) return textReport(stdout);
  const toolCalls = [];
  let finalText = '';
  for (const event of events) {
    const part = event.part ?? {};
    if (event.type === 'tool_use' || part.type === 'tool') toolCalls.push(toolCall(part.tool, part.state?.input, part.state?.output));
    if (event.type === 'text' && typeof part.text === 'string') finalText = part.text;
  }
  return { finalText, toolCalls };
}
