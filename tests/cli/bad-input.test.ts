// `gym eval run` and `gym eval resume` as a user runs them, given bad flags, bad folders and bad rows:
// each gets its own exit status and a message naming the flag, folder or line, never a stack trace.
// TEMPORAL_ADDRESS points at a port nothing listens on, so a check that ran after connecting would fail (status 5).
// Most cases run the command in this process (a subprocess start costs seconds on a loaded machine); the
// read-only folder (run as another user) and one resume case go through the real `gym` subprocess.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gym } from '../helpers/gym-cli';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';
import { reservePort } from '../helpers/ports';

const EXAMPLE = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const NOBODY = 65534;

const mcqaRow = (input: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ responses_create_params: { input }, options: [{ A: 'x' }, { B: 'y' }], expected_answer: 'A', ...extra });

let dir: string;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  dir = await tempDir('gymflow-cli-input-');
  // Readable by another user, for the read-only case run as nobody.
  chmodSync(dir, 0o755);
  env = { TEMPORAL_ADDRESS: `127.0.0.1:${await reservePort()}`, GYMFLOW_HOME: path.join(dir, 'home') };
});

interface Outcome {
  code: number | null;
  stderr: string;
}

function run(flags: string[], opts: { subprocess?: { uid?: number } } = {}): Promise<Outcome> {
  const args = ['eval', 'run', '--env', 'mcqa', '--model', 'mock', ...flags];
  return opts.subprocess ? gym(args, env, opts.subprocess) : gymHere(args, env);
}

function expectRefused(r: Outcome, status: number, message: RegExp): void {
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s{4}at /m);
  expect(r.stderr).not.toMatch(/unexpected error/);
  expect(r.code).toBe(status);
}

function inputFile(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('gym eval run refuses bad number flags', () => {
  it('says what --concurrency must be when given -1', async () => {
    expectRefused(await run(['--input', EXAMPLE, '--output', path.join(dir, 'c1'), '--concurrency', '-1']), 2, /--concurrency must be an integer ≥ 1\b.*, got -1\n/);
  });

  it('refuses a number that is not plain decimal', async () => {
    expectRefused(await run(['--input', EXAMPLE, '--output', path.join(dir, 'c2'), '--concurrency', '0x10']), 2, /--concurrency must be an integer ≥ 1\b.*, got 0x10\n/);
    expectRefused(await run(['--input', EXAMPLE, '--output', path.join(dir, 'c3'), '--mock-accuracy', '1e-1']), 2, /--mock-accuracy must be a number between 0 and 1, got 1e-1\n/);
  });
});

describe('gym eval run refuses an output folder it cannot use', () => {
  it('names --output when it is a file', async () => {
    const file = inputFile('a-file', 'x');
    expectRefused(await run(['--input', EXAMPLE, '--output', file]), 2, new RegExp(`--output ${file} is a file, not a folder`));
  });

  it('names the file when --output is under one', async () => {
    const file = inputFile('another-file', 'x');
    expectRefused(await run(['--input', EXAMPLE, '--output', path.join(file, 'run')]), 2, new RegExp(`--output ${file}/run cannot be made: ${file} is a file`));
  });

  it('says a read-only folder is not writable', async () => {
    const readOnly = path.join(dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(readOnly, 0o555);
    // Root writes anywhere, so as root the command runs as nobody to meet the permissions (a subprocess either way).
    const r = await run(['--input', EXAMPLE, '--output', readOnly], { subprocess: { uid: process.getuid?.() === 0 ? NOBODY : undefined } });
    expectRefused(r, 2, new RegExp(`--output folder ${readOnly} is not writable \\(permission denied\\)`));
  });
});

describe('gym eval resume refuses what is not a run folder', () => {
  it('names a file given as the run folder', async () => {
    const file = inputFile('not-a-run', 'x');
    expectRefused(await gym(['eval', 'resume', file], env), 2, new RegExp(`${file} is a file, not a run folder`));
  });

  it('names a folder without a manifest and a missing folder', async () => {
    const empty = path.join(dir, 'empty-run');
    mkdirSync(empty);
    expectRefused(await gymHere(['eval', 'resume', empty], env), 4, new RegExp(`${empty} holds no manifest.json`));
    expectRefused(await gymHere(['eval', 'resume', path.join(dir, 'no-such-run')], env), 4, /no run folder .*no-such-run/);
  });
});

describe('gym eval run refuses bad rows, naming the line', () => {
  it('refuses rows sharing a _ng_task_index', async () => {
    const input = inputFile('dup.jsonl', ['a', 'b', 'c', 'd'].map((q) => mcqaRow(q, { _ng_task_index: 0 })).join('\n') + '\n');
    expectRefused(await run(['--input', input, '--output', path.join(dir, 'r1')]), 3, /lines 1, 2, 3, 4: the same _ng_task_index 0/);
  });

  it('refuses a row nested 100,000 levels deep', async () => {
    const levels = 100_000;
    const input = inputFile('deep.jsonl', [mcqaRow('ok'), mcqaRow('deep').slice(0, -1) + `, "extra": ${'['.repeat(levels)}${']'.repeat(levels)}}`].join('\n') + '\n');
    expectRefused(await run(['--input', input, '--output', path.join(dir, 'r2')]), 3, /line 2: extra: nested more than 1000 levels deep/);
  });

  it('names the item and field of a bad input item', async () => {
    const input = inputFile(
      'item.jsonl',
      mcqaRow([
        { role: 'user', content: 'a' },
        { role: 'usr', content: 'b' },
      ]) + '\n',
    );
    expectRefused(await run(['--input', input, '--output', path.join(dir, 'r3')]), 3, /line 1: responses_create_params\.input\[1\]\.role: .*got "usr"/);
  });

  it('lists every problem in a file it names when there are more than it prints', async () => {
    const input = inputFile('many.jsonl', Array.from({ length: 25 }, (_, i) => mcqaRow(i)).join('\n') + '\n');
    const r = await run(['--input', input, '--output', path.join(dir, 'r4')]);
    expectRefused(r, 3, /… and 5 more; all 25 are listed in \S+/);
    const listFile = /all 25 are listed in (\S+)/.exec(r.stderr)![1]!;
    const listed = readFileSync(listFile, 'utf8').trimEnd().split('\n');
    expect(listed).toHaveLength(25);
    expect(listed[24]).toMatch(/^line 25: responses_create_params\.input: /);
    rmSync(listFile);
  });

  it('refuses a line that is not valid UTF-8', async () => {
    const [before, after] = mcqaRow('cafX').split('X') as [string, string];
    const input = inputFile('latin1.jsonl', Buffer.concat([Buffer.from(mcqaRow('ok') + '\n' + before), Buffer.from([0xe9]), Buffer.from(after + '\n')]));
    expectRefused(await run(['--input', input, '--output', path.join(dir, 'r5')]), 3, /line 2: not valid UTF-8/);
  });
});
