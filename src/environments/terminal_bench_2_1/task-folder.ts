// Reads a Terminal-Bench 2.1 task folder in Harbor's layout (task.toml, instruction.md, environment/,
// tests/, solution/): what the sandbox starts with, the tests that grade it, the reference solution, the timeouts.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { GymError } from '../../errors';
import { PROJECT_ROOT, utf8Text, walkFiles } from '../sandboxed/text-folder';

/** A Dockerfile without a WORKDIR leaves the harness where Terminal-Bench's images put it. */
export const DEFAULT_WORKDIR = '/app';

const Seconds = z.number().positive();
const TaskToml = z.looseObject({
  task: z.looseObject({ name: z.string().optional() }).optional(),
  agent: z.looseObject({ timeout_sec: Seconds.optional() }).optional(),
  verifier: z.looseObject({ timeout_sec: Seconds.optional() }).optional(),
  environment: z.looseObject({ docker_image: z.string().optional() }).optional(),
});

export interface TestFile {
  /** Relative to the task's tests/ folder. */
  path: string;
  content: Buffer;
  executable: boolean;
}

export interface TaskFolder {
  dir: string;
  /** The Dockerfile's last WORKDIR: the harness's working folder. */
  workdir: string;
  /** What the Dockerfile COPYs, by path relative to `workdir`. */
  files: Record<string, string>;
  /** tests/, copied to /tests after the harness has finished; test.sh among them. */
  tests: TestFile[];
  /** solution/solve.sh, when the task ships one (NeMo Gym's golden patch; the mock model's oracle runs it). */
  solution?: string;
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
}

/** Dockerfile instructions that change nothing the sandbox holds (metadata, the image's start command). */
const IGNORED = new Set(['FROM', 'LABEL', 'MAINTAINER', 'CMD', 'ENTRYPOINT', 'EXPOSE', 'HEALTHCHECK', 'STOPSIGNAL', 'ARG']);

function bad(dir: string, what: string): GymError {
  return new GymError('BAD_TASK', `task folder ${dir}: ${what}`);
}

function utf8(dir: string, file: string, data: Buffer): string {
  return utf8Text(data, () => bad(dir, `${file} is not UTF-8 text; the sandbox is given text files only`));
}

/** Logical lines: continuations (a trailing backslash) joined, comments and blank lines dropped. */
function dockerfileLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (!pending && (trimmed === '' || trimmed.startsWith('#'))) return;
    const continued = trimmed.endsWith('\\');
    const part = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending ? { line: pending.line, text: `${pending.text} ${part}` } : { line: i + 1, text: part };
    if (!continued) {
      out.push(pending);
      pending = undefined;
    }
  });
  if (pending) out.push(pending);
  return out;
}

/** COPY/ADD arguments: the JSON form or words; `--chown=`/`--chmod=` flags are dropped (the sandbox's user owns its files). */
function copyArgs(rest: string): string[] {
  if (rest.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(rest);
    } catch {
      json = undefined;
    }
    const parsed = z.array(z.string()).safeParse(json);
    if (parsed.success) return parsed.data;
  }
  return rest.split(/\s+/).filter((w) => w && !w.startsWith('--'));
}

/**
 * The sandbox's start from environment/Dockerfile, for the instructions a sandbox can reproduce without
 * building an image: WORKDIR and COPY/ADD of the folder's own files. Anything that builds (RUN, ENV,
 * USER, …) is refused: such a task needs its docker_image, which this path does not build.
 */
function readEnvironment(dir: string): { workdir: string; files: Record<string, string> } {
  const envDir = path.join(dir, 'environment');
  const dockerfile = path.join(envDir, 'Dockerfile');
  let text: string;
  try {
    text = readFileSync(dockerfile, 'utf8');
  } catch {
    return { workdir: DEFAULT_WORKDIR, files: {} };
  }
  let workdir = '/';
  let sawWorkdir = false;
  const copies: { line: number; src: string; dest: string; toFolder: boolean }[] = [];
  for (const { line, text: instruction } of dockerfileLines(text)) {
    const [keyword = '', ...restWords] = instruction.split(/\s+/);
    const rest = restWords.join(' ');
    const op = keyword.toUpperCase();
    if (IGNORED.has(op)) continue;
    if (op === 'WORKDIR') {
      workdir = path.posix.resolve(workdir, rest.trim());
      sawWorkdir = true;
      continue;
    }
    if (op === 'COPY' || op === 'ADD') {
      if (/(^|\s)--from[=\s]/.test(rest)) throw bad(dir, `environment/Dockerfile:${line}: ${op} --from copies out of another build stage, which needs the task's image built`);
      const args = copyArgs(rest);
      if (args.length < 2) throw bad(dir, `environment/Dockerfile:${line}: ${op} needs a source and a destination`);
      const dest = args.at(-1)!;
      const sources = args.slice(0, -1);
      for (const src of sources) {
        if (/[*?[]/.test(src) || /^[a-z]+:\/\//i.test(src)) throw bad(dir, `environment/Dockerfile:${line}: ${op} ${src}: only plain paths inside environment/ are copied (no globs or URLs)`);
        const at = path.resolve(envDir, src);
        if (at !== envDir && !at.startsWith(`${envDir}${path.sep}`)) throw bad(dir, `environment/Dockerfile:${line}: ${src} is outside environment/`);
        const toFolder = dest.endsWith('/') || sources.length > 1 || statSync(at, { throwIfNoEntry: false })?.isDirectory() === true;
        copies.push({ line, src: at, dest: path.posix.resolve(workdir, dest), toFolder });
      }
      continue;
    }
    throw bad(dir, `environment/Dockerfile:${line}: ${op} builds the image, which needs the task's docker_image: only WORKDIR and COPY/ADD of the task's own files are set up in a sandbox here`);
  }
  const finalWorkdir = sawWorkdir ? workdir : DEFAULT_WORKDIR;
  const files: Record<string, string> = {};
  for (const copy of copies) {
    const stat = statSync(copy.src, { throwIfNoEntry: false });
    if (!stat) throw bad(dir, `environment/Dockerfile:${copy.line}: ${path.relative(envDir, copy.src)} does not exist`);
    const entries = stat.isDirectory()
      ? walkFiles(copy.src).map((rel) => ({ from: path.join(copy.src, rel), to: `${copy.dest}/${rel}` }))
      : [{ from: copy.src, to: copy.toFolder ? `${copy.dest}/${path.basename(copy.src)}` : copy.dest }];
    for (const { from, to } of entries) {
      const rel = path.posix.relative(finalWorkdir, to);
      if (!rel || rel.startsWith('..')) throw bad(dir, `environment/Dockerfile:${copy.line}: ${to} is outside the workdir ${finalWorkdir}, the only place a sandbox is set up in`);
      files[rel] = utf8(dir, path.relative(dir, from), readFileSync(from));
    }
  }
  return { workdir: finalWorkdir, files };
}

function readToml(dir: string): z.infer<typeof TaskToml> {
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'task.toml'), 'utf8');
  } catch {
    return {};
  }
  let value: unknown;
  try {
    value = parseToml(text);
  } catch (e) {
    throw bad(dir, `task.toml is not TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = TaskToml.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw bad(dir, `task.toml: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

const cache = new Map<string, TaskFolder>();

/** The task folder at `folder` (absolute, or relative to the project's root); read once per process. */
export function readTaskFolder(folder: string): TaskFolder {
  const dir = path.resolve(PROJECT_ROOT, folder);
  const cached = cache.get(dir);
  if (cached) return cached;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new GymError(
      'BAD_TASK',
      `task folder ${folder} (${dir}) does not exist: NeMo Gym's rows name folders of a Terminal-Bench 2.1 checkout (benchmarks/terminal_bench_2_1/prepare.py clones it); give a folder that is on this machine`,
    );
  }
  const testsDir = path.join(dir, 'tests');
  if (!statSync(path.join(testsDir, 'test.sh'), { throwIfNoEntry: false })?.isFile()) throw bad(dir, 'tests/test.sh is missing: it is what decides the reward');
  const toml = readToml(dir);
  const tests = walkFiles(testsDir).map((rel) => {
    const file = path.join(testsDir, rel);
    return { path: rel, content: readFileSync(file), executable: (statSync(file).mode & 0o111) !== 0 };
  });
  const solve = path.join(dir, 'solution', 'solve.sh');
  const solution = statSync(solve, { throwIfNoEntry: false })?.isFile() ? utf8(dir, 'solution/solve.sh', readFileSync(solve)) : undefined;
  const task: TaskFolder = {
    dir,
    ...readEnvironment(dir),
    tests,
    ...(solution !== undefined ? { solution } : {}),
    ...(toml.agent?.timeout_sec !== undefined ? { agentTimeoutSec: toml.agent.timeout_sec } : {}),
    ...(toml.verifier?.timeout_sec !== undefined ? { verifierTimeoutSec: toml.verifier.timeout_sec } : {}),
  };
  cache.set(dir, task);
  return task;
}
