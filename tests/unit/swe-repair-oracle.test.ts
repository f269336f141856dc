// The swe_repair oracle against the tool lists real harnesses sent (captured first requests, converted to
// the Responses shape the mock backend sees by the gateway's own edge conversions).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messagesToResponses, MessagesRequest } from '../../src/gateway/anthropic';
import { chatRequestToResponses } from '../../src/gateway/convert';
import { ChatCompletionRequest } from '../../src/gateway/wire';
import { SweRepairTask } from '../../src/environments/swe_repair';
import { sweRepairOracle } from '../../src/environments/swe_repair/oracle';
import { seededRng } from '../../src/util/rng';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/harness-tools');
const task = SweRepairTask.parse(JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../src/environments/swe_repair/data/example.jsonl'), 'utf8').split('\n')[0]!));

function responsesTools(harness: string): unknown[] {
  const { path: route, tools } = JSON.parse(readFileSync(path.join(FIXTURES, `${harness}.json`), 'utf8'));
  if (route === '/v1/responses') return tools;
  if (route === '/v1/chat/completions') return chatRequestToResponses(ChatCompletionRequest.parse({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools })).tools ?? [];
  return messagesToResponses(MessagesRequest.parse({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools })).tools ?? [];
}

const play = (harness: string, history: any[], correct = true) => sweRepairOracle(task, history, { correct, rng: seededRng('t'), tools: responsesTools(harness) });

// The shell tool each harness offers, read off its captured request by hand.
const SHELLS: Record<string, string> = { pi: 'bash', opencode: 'bash', codex: 'exec_command', 'claude-code': 'Bash', kilo: 'bash', cline: 'run_commands', openclaw: 'exec' };

describe('sweRepairOracle', () => {
  it.each(Object.entries(SHELLS))('%s: writes the fix with its shell tool, a line that really writes the files', (harness, shell) => {
    const [call] = play(harness, []) as any[];
    expect(call).toMatchObject({ type: 'function_call', name: shell });
    const args = JSON.parse(call.arguments);
    const line: string = Array.isArray(args.commands) ? args.commands[0] : (args.command ?? args.cmd);
    const root = mkdtempSync(path.join(os.tmpdir(), 'swe-oracle-'));
    execFileSync('sh', ['-c', line.split('/workspace').join(root)]);
    for (const [file, content] of Object.entries(task.fix)) expect(readFileSync(path.join(root, file), 'utf8')).toBe(content);
  });

  it('finishes with submit_and_exit where the harness offers it (cline), else with a message', () => {
    const history = (harness: string) => [play(harness, [])[0], { type: 'function_call_output', call_id: 'call_swe_0', output: 'ok' }];
    expect(play('cline', history('cline'))[0]).toMatchObject({ type: 'function_call', name: 'submit_and_exit' });
    expect(JSON.parse((play('cline', history('cline'))[0] as any).arguments)).toMatchObject({ verified: true });
    expect(play('pi', history('pi'))[0]).toMatchObject({ type: 'message', role: 'assistant' });
  });

  it('touches nothing when the rollout is played wrong', () => {
    expect(play('pi', [], false)[0]).toMatchObject({ type: 'message' });
  });
});
