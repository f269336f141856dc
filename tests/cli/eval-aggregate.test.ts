// `gym eval aggregate` as a user runs it (in this process): NeMo Gym's rollouts file aggregated into the
// metrics NeMo Gym's own code computed for it, Gymflow's metrics.json from NeMo Gym's recorded rollouts,
// and every line that cannot be aggregated named by number, with nothing written.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { agent_ref: { name: string }; key_metrics: Record<string, number> }[];

describe('gym eval aggregate', () => {
  it("writes <stem>_aggregate_metrics.json beside the file, per agent, with NeMo Gym's key metrics, and prints them", async () => {
    const dir = await tempDir('gymflow-aggregate-');
    const file = path.join(dir, 'rollouts.jsonl');
    copyFileSync(path.join(FIXTURES, 'aggregate', 'rollouts.jsonl'), file);
    const r = await gymHere(['eval', 'aggregate', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const written = readJson(path.join(dir, 'rollouts_aggregate_metrics.json'));
    const expected = readJson(path.join(FIXTURES, 'aggregate', 'expected_aggregate_metrics.json'));
    for (const entry of expected) {
      const ours = written.find((e) => e.agent_ref.name === entry.agent_ref.name)!;
      for (const [k, v] of Object.entries(entry.key_metrics)) expect(ours.key_metrics[k], k).toBeCloseTo(v, 9);
    }
    expect(r.stdout).toMatch(/^mcqa_simple_agent: mean\/reward=0\.5 .*majority@4\/accuracy=77\.7778$/m);
    expect(r.stdout).toContain(`wrote ${path.join(dir, 'rollouts_aggregate_metrics.json')}`);
  });

  it("--format gymflow: Gymflow's metrics over NeMo Gym's recorded mcqa rollouts", async () => {
    const dir = await tempDir('gymflow-aggregate-');
    const out = path.join(dir, 'm.json');
    const r = await gymHere(['eval', 'aggregate', path.join(FIXTURES, 'mcqa', 'example_rollouts.jsonl'), '--format', 'gymflow', '-o', out]);
    expect(r.code).toBe(0);
    const metrics = JSON.parse(readFileSync(out, 'utf8')) as { rollouts_recorded: number; mean_reward: number };
    // Recorded rewards: 0, 1, 0, 1, 1.
    expect(metrics.rollouts_recorded).toBe(5);
    expect(metrics.mean_reward).toBeCloseTo(0.6, 12);
  });

  it('--output - prints the metrics instead', async () => {
    const r = await gymHere(['eval', 'aggregate', path.join(FIXTURES, 'blackjack', 'example_rollouts.jsonl'), '--output', '-']);
    expect(r.code).toBe(0);
    const [entry] = JSON.parse(r.stdout) as { agent_ref: { name: string }; agent_metrics: Record<string, number> }[];
    expect(entry!.agent_ref.name).toBe('blackjack_gymnasium_agent');
    expect(entry!.agent_metrics['mean/reward']).toBeCloseTo(0.2, 12);
  });

  it('names every line that cannot be aggregated and writes nothing (exit 3)', async () => {
    const dir = await tempDir('gymflow-aggregate-');
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      ['{"reward": 1}', 'not json', '{"reward": "x"}', '[1]', '', '{"reward": 1, "_ng_task_index": -1}', '{"agent_ref": {"name": "a"}}', '{"reward": 0, "mask_sample": "no"}'].join('\n') + '\n',
    );
    const r = await gymHere(['eval', 'aggregate', file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      [
        `gym: rollouts file ${file} has 6 line(s) that cannot be aggregated`,
        `  line 2: not valid JSON (Unexpected token 'o', "not json" is not valid JSON)`,
        '  line 3: reward is "x", not a number',
        '  line 4: not a JSON object',
        '  line 6: _ng_task_index is -1, not a non-negative integer',
        '  line 7: no reward',
        '  line 8: mask_sample is "no", not a boolean',
        '',
      ].join('\n'),
    );
    expect(existsSync(path.join(dir, 'bad_aggregate_metrics.json'))).toBe(false);
  });

  it.each([
    ['no file', [], 2, /give exactly one rollouts file/],
    ['a missing file', ['/nonexistent/rollouts.jsonl'], 4, /rollouts file \/nonexistent\/rollouts\.jsonl does not exist/],
    ['an unknown format', [path.join(FIXTURES, 'blackjack', 'example_rollouts.jsonl'), '--format', 'csv'], 2, /--format must be nemo-gym or gymflow, got "csv"/],
  ])('refuses %s', async (_name, args, code, message) => {
    const r = await gymHere(['eval', 'aggregate', ...(args as string[])]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });
});
