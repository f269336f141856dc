// strands (@strands-agents/sdk): an agent SDK, not a CLI, so Gymflow runs a script of its own with it
// (src/agents/strands/runner.mjs) on the pinned Node, offered the environment's tools, whose calls come back
// to the worker (src/agents/strands/run.ts). Its events are JSON lines: one per tool call, then `final`.
import path from 'node:path';
import { PACKAGE_ROOT } from '../util/paths';
import { SANDBOX_NODE } from './install';
import { jsonLines, toolCall } from './report';
import type { HarnessAdapter, HarnessReport } from './types';

export const STRANDS_RUNNER = path.join(PACKAGE_ROOT, 'src', 'agents', 'strands', 'runner.mjs');

function report(stdout: string): HarnessReport {
  let finalText = '';
  const toolCalls: HarnessReport['toolCalls'] = [];
  for (const event of jsonLines(stdout)) {
    if (event.type === 'tool') toolCalls.push(toolCall(event.name, event.arguments, event.output));
    if (event.type === 'final' && typeof event.text === 'string') finalText = event.text;
  }
  return { finalText, toolCalls };
}

export const strands: HarnessAdapter = {
  name: 'strands',
  install: {
    package: { name: '@strands-agents/sdk', version: '1.19.0' },
    // Its OpenAI provider's client is an optional peer dependency; zod is a required one, pinned here so
    // the install does not float.
    extras: [
      { name: 'openai', version: '6.49.0' },
      { name: 'zod', version: '4.6.7' },
    ],
    // The SDK needs Node >= 22 (the worker may run an older one): the pinned Node runs the runner.
    node: SANDBOX_NODE,
  },
  api: 'chat',
  trainable: true,
  takesSystemPrompt: true,
  playsEnvironmentTools: true,
  invocation(input) {
    const request = {
      instruction: input.prompt,
      ...(input.systemPrompt ? { system_prompt: input.systemPrompt } : {}),
      model: input.model,
      base_url: input.baseUrl,
      tools: input.tools?.definitions ?? [],
      tool_url: input.tools?.url,
    };
    const file = `${input.home}/request.json`;
    return {
      files: [{ path: file, content: JSON.stringify(request) }],
      env: {},
      args: [STRANDS_RUNNER, file],
      keyEnv: 'GYMFLOW_GATEWAY_KEY',
    };
  },
  report,
};
