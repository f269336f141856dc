// A real harness CLI on a text task, NeMo Gym's pi_reasoning_gym: the Pi CLI (installed by `gym setup
// --harnesses`, as .ci/run does) answers reasoning_gym rows in a local sandbox's empty folder through the
// gateway, the mock model scripting its answers, and reasoning_gym's own verify grades the final message.
// Once by the harness-first bundle, once by the pre-v0.6.0 names (with --agent-type pi_agent).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';
import { harnessRunDir, harnessRunEnv } from '../helpers/harness-run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const ROWS = path.join(PACKAGE_ROOT, 'configs/environments/pi_reasoning_gym/data/example.jsonl');
const GOLD = JSON.parse(readFileSync(ROWS, 'utf8').split('\n')[0]!).answer as string;

describe('a harness on reasoning_gym text tasks', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    dir = await harnessRunDir('gymflow-harness-text-');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  async function play(name: string, args: string[]) {
    const out = path.join(dir, name);
    const env = harnessRunEnv(server, dir);
    const r = await gymHere(['eval', 'run', '--env-yaml', '/dev/null', '--input', ROWS, '--limit', '1', '--model', 'mock', '--output', out, ...args], env);
    expect(r.code, r.stderr).toBe(0);
    const records = readFileSync(path.join(out, 'rollouts.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    return { record: records[0], stderr: r.stderr };
  }

  it('pi_reasoning_gym: the right answer, graded 1 by reasoning_gym', async () => {
    const { record, stderr } = await play('canonical', ['--environment', 'pi_reasoning_gym', '--agent-name', 'pi_reasoning_gym_agent']);
    expect(stderr).not.toMatch(/deprecated/);
    expect(record._gf_harness).toMatchObject({ name: 'pi', exit_code: 0 });
    expect(record.agent_ref.name).toBe('pi_reasoning_gym_agent');
    // reasoning_gym's own fields: what it pulled out of the harness's final message.
    expect(record.extracted_answer).toBe(GOLD);
    expect(record.reward).toBe(1);
    expect(record.response.output.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
  }, 600_000);

  it('reasoning_gym_claude_code by its legacy names, played by pi: a wrong answer graded 0, one warning per old name', async () => {
    const { record, stderr } = await play('legacy', [
      '--environment',
      'reasoning_gym_claude_code',
      '--agent-name',
      'reasoning_gym_claude_code_agent',
      '--agent-type',
      'pi_agent',
      '--mock-accuracy',
      '0',
    ]);
    const warned = (text: string) => stderr.split(text).length - 1;
    expect(warned('`--environment reasoning_gym_claude_code` is deprecated; use `--environment claude_code_reasoning_gym`.')).toBe(1);
    expect(warned('Legacy agent name `reasoning_gym_claude_code_agent` is deprecated; use `claude_code_reasoning_gym_agent`.')).toBe(1);
    expect(record._gf_harness).toMatchObject({ name: 'pi', exit_code: 0 });
    expect(record.agent_ref.name).toBe('claude_code_reasoning_gym_agent');
    expect(record.extracted_answer).not.toBe(GOLD);
    expect(record.extracted_answer).not.toBe('');
    expect(record.reward).toBe(0);
  }, 600_000);
});
