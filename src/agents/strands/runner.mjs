// Gymflow's Strands runner: one episode of a Strands Agent (@strands-agents/sdk, installed by `gym setup
// --harnesses strands`), its model the OpenAI-compatible provider on the rollout's gateway URL (Chat
// Completions, as NeMo Gym's simple_strands_agent points its model), its tools the environment's own,
// each call sent back to the worker's tool endpoint. Run by the pinned Node (the SDK needs Node >= 22).
// Plain JavaScript: it runs outside the project's TypeScript tooling, on the SDK's own install.
//
//   node runner.mjs <request.json>
//
// Reads the gateway key from GYMFLOW_GATEWAY_KEY and the tool token from GYMFLOW_TOOL_TOKEN (never a
// file); prints one JSON line per tool call and a last `final` line; exits 1 on a failed episode.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const say = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

/** The SDK comes from its own install folder (GYMFLOW_STRANDS_MODULES), not from the project's node_modules. */
async function load(specifier) {
  const modules = process.env.GYMFLOW_STRANDS_MODULES;
  if (!modules) throw new Error('GYMFLOW_STRANDS_MODULES is not set: the runner is started by Gymflow, which points it at the SDK install');
  const require = createRequire(path.join(modules, 'gymflow-runner.cjs'));
  return import(pathToFileURL(require.resolve(specifier)).href);
}

/** Raised by a tool whose environment call failed: the episode stops, since the rollout is lost. */
class EnvironmentToolError extends Error {}

async function main() {
  const request = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const { Agent, tool, NullConversationManager } = await load('@strands-agents/sdk');
  const { OpenAIModel } = await load('@strands-agents/sdk/models/openai');

  const tools = (request.tools ?? [])
    .filter((t) => t && t.type === 'function' && typeof t.name === 'string')
    .map((t) =>
      tool({
        name: t.name,
        // The SDK's OpenAI provider refuses a tool without a description, and some NeMo Gym rows give ""
        // (example_session_state_mgmt): such a tool is described by its name.
        description: t.description || t.name,
        inputSchema: t.parameters ?? { type: 'object', properties: {} },
        async callback(input, context) {
          const callId = String(context.toolUse.toolUseId);
          const args = JSON.stringify(input ?? {});
          const res = await fetch(`${request.tool_url}/${encodeURIComponent(t.name)}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GYMFLOW_TOOL_TOKEN}` },
            body: JSON.stringify({ call_id: callId, arguments: args }),
          });
          const body = await res.json().catch(() => ({}));
          // The rollout is lost once a tool has failed in the environment: the episode ends here, before
          // the SDK hands the error to the model as a tool result and asks it again.
          if (!res.ok) fail(new EnvironmentToolError(String(body.error ?? `the tool endpoint answered ${res.status}`)));
          say({ type: 'tool', call_id: callId, name: t.name, arguments: args, output: body.output });
          return body.output;
        },
      }),
    );

  const model = new OpenAIModel({
    api: 'chat',
    modelId: request.model,
    apiKey: process.env.GYMFLOW_GATEWAY_KEY,
    // The gateway is the only retry point: a refused or failed call ends the episode, and the rollout's
    // own retries (a fresh attempt) decide what happens next.
    clientConfig: { baseURL: request.base_url, maxRetries: 0 },
    ...(request.max_output_tokens ? { maxTokens: request.max_output_tokens } : {}),
    ...(typeof request.temperature === 'number' ? { temperature: request.temperature } : {}),
  });
  const agent = new Agent({
    model,
    tools,
    ...(request.system_prompt ? { systemPrompt: request.system_prompt } : {}),
    printer: false,
    // The whole history on every call, as Gymflow's loop sends it: the calls form one growing
    // conversation, which is what rebuilds into a training response.
    conversationManager: new NullConversationManager(),
    retryStrategy: null,
    // One tool call at a time, in the order the model asked for them, as NeMo Gym's simple agent runs them.
    toolExecutor: 'sequential',
  });
  const result = await agent.invoke(request.instruction);
  say({ type: 'final', text: result.lastMessage ? textOf(result.lastMessage) : '', stop_reason: result.stopReason });
}

function textOf(message) {
  return (message.content ?? [])
    .filter((block) => block && block.type === 'textBlock')
    .map((block) => block.text)
    .join('');
}

function fail(e) {
  say({ type: 'error', kind: e instanceof EnvironmentToolError ? 'tool' : 'agent', message: String(e?.message ?? e) });
  // The message last: what Gymflow quotes from the end of stderr when the run fails.
  process.stderr.write(`${e?.stack ?? e}\nstrands runner failed: ${String(e?.message ?? e)}\n`);
  process.exit(1);
}

main().then(() => process.exit(0), fail);
