// Terminus-2 (Harbor's terminal agent, PyPI `harbor`): a Python agent that types shell keystrokes into a tmux
// terminal, asking the model for each batch in its own JSON format (no tools). Run headless by our driver
// (terminus_2_driver.py), its LiteLLM client pointed at the gateway's Chat Completions; the driver prints the
// agent's trajectory (Harbor's ATIF) as one JSON line.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lastJsonObject, textReport, toolCall } from './report';
import type { HarnessAdapter, HarnessReport, HarnessToolCall } from './types';

const DRIVER = readFileSync(fileURLToPath(new URL('./terminus_2_driver.py', import.meta.url)), 'utf8');

function report(stdout: string): HarnessReport {
  const envelope = lastJsonObject(stdout);
  if (envelope?.type !== 'trajectory') return textReport(stdout);
  const toolCalls: HarnessToolCall[] = [];
  let finalText = '';
  for (const step of envelope.trajectory?.steps ?? []) {
    if (step?.source !== 'agent') continue;
    if (typeof step.message === 'string' && step.message) finalText = step.message;
    const results: any[] = step.observation?.results ?? [];
    (step.tool_calls ?? []).forEach((call: any, i: number) => {
      // A batch's one terminal output follows its last command; Harbor files it under that command's id.
      const result = results.find((r) => r?.source_call_id === call.tool_call_id) ?? (results.length === 1 && i === step.tool_calls.length - 1 ? results[0] : undefined);
      toolCalls.push(toolCall(call.function_name, call.arguments, result?.content));
    });
  }
  return { finalText, toolCalls };
}

export const terminus2: HarnessAdapter = {
  name: 'terminus-2',
  // Harbor 0.25.0 requires Python ≥ 3.12 (its code uses typing.override).
  install: { kind: 'pypi', package: { name: 'harbor', version: '0.25.0' }, python: [3, 12] },
  api: 'chat',
  // One growing conversation: each call sends the last one's messages, its answer and the new terminal
  // output (the driver turns Harbor's summarizing, which would rewrite it, off).
  trainable: true,
  invocation(input) {
    const driver = `${input.home}/terminus_2_driver.py`;
    return {
      files: [{ path: driver, content: DRIVER }],
      env: {
        // LiteLLM otherwise fetches its model price list from the internet at import.
        LITELLM_LOCAL_MODEL_COST_MAP: 'True',
        LITELLM_TELEMETRY: 'False',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONUNBUFFERED: '1',
      },
      args: [driver, '--workspace', input.workspace, '--logs', `${input.home}/terminus-2`, '--model', input.model, '--base-url', input.baseUrl, input.prompt],
      keyEnv: 'OPENAI_API_KEY',
    };
  },
  report,
};
