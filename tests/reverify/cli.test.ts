// `gym eval reverify` as a user runs it: NeMo Gym's mcqa rewards reproduced (the stale row listed as
// the one disagreement), a judge served through the gateway, and bad input refused with an exit code.
// The first case is the real `gym` subprocess; the rest run the command in this process (each subprocess
// start costs seconds on a loaded machine).
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedJudgeExchanges } from '../../src/reverify/judge';
import { FIXTURES, readJsonl } from '../environments/nemo_fixtures';
import { gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';

const MCQA = path.join(FIXTURES, 'mcqa');
const readRows = (file: string) => readJsonl<Record<string, any>>(file);

describe('gym eval reverify on mcqa', () => {
  it('reproduces NeMo Gym rewards; the stale recording is the one disagreement (0 → 1)', async () => {
    const dir = await tempDir('gymflow-reverify-');
    const output = path.join(dir, 'out.jsonl');
    const r = await gym(['eval', 'reverify', path.join(MCQA, 'example_rollouts.jsonl'), '--env', 'mcqa', '--tasks', path.join(MCQA, 'example.jsonl'), '--output', output]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('mcqa: 5 rollout(s), 5 re-verified (joined 5 by input)');
    expect(r.stdout).toContain('agreement: 4/5 recomputed rewards equal the recorded ones');
    expect(r.stdout).toMatch(/disagreements \(1\):\n {2}line 3, task 1: 0 → 1 {2}"/);

    const recorded = readRows(path.join(MCQA, 'example_rollouts.jsonl'));
    const rows = readRows(output);
    expect(rows.map((row) => row._gf_recorded_reward)).toEqual(recorded.map((row) => row.reward));
    expect(rows.map((row) => row.reward)).toEqual(recorded.map((row, i) => (i === 2 ? 1 : row.reward)));
    expect(rows[2]!.extracted_answer).toBe('C');
  });

  it('finds tasks.jsonl beside the rollouts and writes <stem>_reverified.jsonl', async () => {
    const dir = await tempDir('gymflow-reverify-');
    copyFileSync(path.join(MCQA, 'example_rollouts.jsonl'), path.join(dir, 'rollouts.jsonl'));
    copyFileSync(path.join(MCQA, 'example.jsonl'), path.join(dir, 'tasks.jsonl'));
    const r = await gymHere(['eval', 'reverify', path.join(dir, 'rollouts.jsonl'), '--env', 'mcqa']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`tasks: ${path.join(dir, 'tasks.jsonl')}`);
    expect(readRows(path.join(dir, 'rollouts_reverified.jsonl'))).toHaveLength(5);
  });
});

describe('gym eval reverify with a judge', () => {
  it('equivalence_llm_judge: a mock judge replaying the recorded judge replies reproduces every reward', async () => {
    const dir = await tempDir('gymflow-reverify-');
    const rollouts = path.join(FIXTURES, 'equivalence_llm_judge', 'example_rollouts_openqa.jsonl');
    const replies = path.join(dir, 'judge.jsonl');
    writeFileSync(
      replies,
      recordedJudgeExchanges(readRows(rollouts))
        .map((e) => JSON.stringify(e) + '\n')
        .join(''),
    );
    const args = ['eval', 'reverify', rollouts, '--env', 'equivalence_llm_judge', '--tasks', path.join(FIXTURES, 'equivalence_llm_judge', 'example_openqa.jsonl'), '-o', path.join(dir, 'out.jsonl')];

    const missing = await gymHere(args);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('grades with an LLM judge: pass --judge-model');

    const r = await gymHere([...args, '--judge-model', 'mock', '--mock-replay', replies]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('agreement: 5/5');
  });
});

describe('gym eval reverify refuses bad input', () => {
  const rollouts = path.join(MCQA, 'example_rollouts.jsonl');

  it.each([
    ['no rollouts file', ['--env', 'mcqa'], 2, /give exactly one rollouts file/],
    ['an unknown environment', [rollouts, '--env', 'nope'], 2, /unknown environment "nope"/],
    ['a missing rollouts file', ['/nonexistent/rollouts.jsonl', '--env', 'mcqa'], 4, /cannot read rollouts file/],
    [
      'the wrong tasks file',
      [rollouts, '--env', 'mcqa', '--tasks', path.join(FIXTURES, 'string_match', 'example.jsonl')],
      3,
      /5 of 5 rollout\(s\) cannot be joined to a task[^]*line 1: no task has the same input/,
    ],
    ['an output over the input', [rollouts, '--env', 'mcqa', '--output', rollouts], 2, /would overwrite an input file/],
    [
      'a stateful environment without --force',
      [
        path.join(FIXTURES, 'example_session_state_mgmt', 'example_rollouts.jsonl'),
        '--env',
        'example_session_state_mgmt',
        '--tasks',
        path.join(FIXTURES, 'example_session_state_mgmt', 'example.jsonl'),
        '-o',
        '/tmp/never-written.jsonl',
      ],
      2,
      /is stateful.*Pass --force/,
    ],
  ])('%s', async (_name, args, code, message) => {
    const r = await gymHere(['eval', 'reverify', ...(args as string[])]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('names the broken line of a rollouts file', async () => {
    const dir = await tempDir('gymflow-reverify-');
    const broken = path.join(dir, 'broken.jsonl');
    writeFileSync(broken, readFileSync(rollouts, 'utf8').split('\n').slice(0, 1).join('\n') + '\n{"not json\n');
    const r = await gymHere(['eval', 'reverify', broken, '--env', 'mcqa', '--tasks', path.join(MCQA, 'example.jsonl')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/has 1 unreadable line\(s\)\n {2}line 2: not valid JSON/);
    expect(existsSync(path.join(dir, 'broken_reverified.jsonl'))).toBe(false);
  });

  it('with --skip-unjoined, reports the rollouts without a task and re-verifies the rest (exit 0)', async () => {
    const dir = await tempDir('gymflow-reverify-');
    const mixed = path.join(dir, 'mixed.jsonl');
    const stray = { ...readRows(path.join(FIXTURES, 'string_match', 'example_rollouts.jsonl'))[0], _ng_task_index: 99 };
    writeFileSync(mixed, readFileSync(rollouts, 'utf8') + JSON.stringify(stray) + '\n');
    const r = await gymHere(['eval', 'reverify', mixed, '--env', 'mcqa', '--tasks', path.join(MCQA, 'example.jsonl'), '--skip-unjoined']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('mcqa: 6 rollout(s), 5 re-verified');
    expect(r.stdout).toMatch(/skipped, no task \(1\):\n {2}line 6: its _ng_task_index 99 is past the last task \(5 rows\), and no task has the same input/);
    expect(readRows(path.join(dir, 'mixed_reverified.jsonl'))).toHaveLength(5);
  });
});

describe('gym eval reverify --env-option', () => {
  const MATH = path.join(FIXTURES, 'math_with_judge');
  const args = (dir: string, ...options: string[]) => [
    'eval',
    'reverify',
    path.join(MATH, 'example_rollouts.jsonl'),
    '--env',
    'math_with_judge',
    '--tasks',
    path.join(MATH, 'example.jsonl'),
    '-o',
    path.join(dir, 'out.jsonl'),
    ...options,
  ];

  it('grades with the settings given, as `gym eval run` takes them', async () => {
    const dir = await tempDir('gymflow-reverify-');
    const plain = await gymHere(args(dir));
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('agreement: 5/5');
    // With the judge switched on, the answers the symbolic check rejects go to a judge this reverify has none of.
    const judged = await gymHere(args(dir, '--env-option', 'should_use_judge=true'));
    expect(judged.code).toBe(0);
    expect(judged.stdout).toContain('math_with_judge?should_use_judge=true: 5 rollout(s)');
    expect(judged.stdout).toMatch(/judge_failed \(no reward\) \(2\):/);
  });

  it.each([
    ['an unknown setting', 'nope=1', /environment "math_with_judge" setting \(settings\): Unrecognized key: "nope"/],
    ['a pair without "="', 'nope', /--env-option must be KEY=VALUE, got "nope"/],
  ])('refuses %s before reading a rollout (exit 2)', async (_name, option, message) => {
    const dir = await tempDir('gymflow-reverify-');
    const r = await gymHere(args(dir, '--env-option', option));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(path.join(dir, 'out.jsonl'))).toBe(false);
  });
});
