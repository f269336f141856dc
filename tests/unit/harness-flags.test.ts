// `gym eval run --agent <harness>`: the rollout grain is implied, the turn grain refused by name, and a
// sandboxed environment needs a harness; Claude Code's mid-conversation system turns reach the backends.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { messagesToResponses, MessagesRequest } from '../../src/gateway/anthropic';

const input = path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl');
const flags = (extra: Record<string, unknown>) => ({ env: 'swe_repair', model: 'mock', input, output: path.join(os.tmpdir(), `harness-flags-${process.pid}-${Math.random()}`), ...extra });

describe('--agent', () => {
  it('puts the harness on the environment and picks the rollout grain', () => {
    const config = buildRunConfig(flags({ agent: 'pi', 'harness-timeout-ms': '90000' }));
    expect(config.env.harness).toEqual({ name: 'pi', sandbox: 'local', timeout_ms: 90_000, max_model_calls: 100 });
    expect(config.durability).toBe('rollout');
  });

  it('takes the sandbox image with --sandbox docker, and refuses docker without one, naming the flag', () => {
    const config = buildRunConfig(flags({ agent: 'opencode', sandbox: 'docker', 'sandbox-image': 'gymflow-task:abc' }));
    expect(config.env.harness).toMatchObject({ name: 'opencode', sandbox: 'docker', sandbox_image: 'gymflow-task:abc' });
    expect(() => buildRunConfig(flags({ agent: 'opencode', sandbox: 'docker' }))).toThrow(/^--sandbox-image: the docker sandbox needs an image .*setup-docker\.sh image/);
    expect(() => buildRunConfig(flags({ 'sandbox-image': 'gymflow-task:abc' }))).toThrow(/--sandbox-image only goes with --agent/);
  });

  it('refuses the turn grain, naming the flag', () => {
    expect(() => buildRunConfig(flags({ agent: 'pi', durability: 'turn' }))).toThrow(/--durability turn cannot play --agent pi/);
  });

  it('refuses a sandboxed environment without a harness, an unknown harness, and a harness on a tool-using environment', () => {
    expect(() => buildRunConfig(flags({}))).toThrow(/pass --agent <harness>/);
    expect(() => buildRunConfig(flags({ agent: 'aider' }))).toThrow(/unknown harness "aider"/);
    expect(() => buildRunConfig(flags({ env: 'example_single_tool_call', agent: 'pi' }))).toThrow(
      '--agent pi: environment example_single_tool_call is played with its tools (get_weather), which a harness cannot call; play it with simple_agent',
    );
  });

  it('plays a tool-free text environment with a harness, in the rollout grain', () => {
    const config = buildRunConfig(flags({ env: 'mcqa', agent: 'pi' }));
    expect(config.env.harness?.name).toBe('pi');
    expect(config.durability).toBe('rollout');
  });
});

describe('/v1/messages system turns', () => {
  it('carries a system turn inside messages as a system message, in place', () => {
    const request = MessagesRequest.parse({
      model: 'm',
      max_tokens: 5,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: '# Environment' }] },
      ],
    });
    expect(messagesToResponses(request).input).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'message', role: 'system', content: '# Environment' },
    ]);
  });
});
