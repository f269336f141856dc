// The ten tools NeMo Gym's vcqa offers, answering as it does: every reply is `{result, error}`, and bad
// arguments, paths out of /codebase, failures and timeouts are errors for the model, never a failed rollout.
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { pyStrip } from '../../python/str';
import { pyRepr } from '../../python/values';
import { reply, type Tool, type ToolReply } from '../types';
import { argsJsonSchema, parseArgs, type ArgsSpec } from './args';
import { glob, grep } from './search';
import { CODEBASE, decodeReplace, execInTree, type Kept } from './shell';
import { followInTree, resolveUnderCodebase } from './tree';

/** NeMo Gym's MAX_TOOL_OUTPUT_BYTES: 32 KiB per output. */
export const MAX_OUTPUT_BYTES = 32 * 1024;
/** NeMo Gym's apptainer_exec_timeout_s: the bound on every command but bash's own timeout. */
const EXEC_TIMEOUT_S = 30;

/** A rollout's session: the todo scratchpad (NeMo Gym's /tmp/scratch/todos.md). */
export interface VcqaState {
  todos: string;
}

/** How a tool reaches the task's working tree (made on first use). */
export type TreeOf = (task: unknown) => Promise<string>;

interface ToolSpec {
  model: string;
  description: string;
  args: ArgsSpec;
}

const REAL: Record<string, ToolSpec> = {
  read_file: {
    model: 'ReadFileArgs',
    description: 'Read a file from the repo working tree at /codebase.',
    args: {
      path: { kind: 'str', description: 'Path to the file to read, relative to /codebase.' },
      max_bytes: { kind: 'int', nullable: true, default: null, description: 'Optional cap on returned bytes. Defaults to 32 KiB.' },
    },
  },
  grep: {
    model: 'GrepArgs',
    description: 'Search for a pattern in the repo working tree using ripgrep.',
    args: {
      pattern: { kind: 'str', description: 'Regex pattern to search for.' },
      path: { kind: 'str', nullable: true, default: null, description: 'Optional file or directory under /codebase to search in.' },
      fixed_strings: { kind: 'bool', default: false, description: 'Treat pattern as a literal string, not a regex.' },
      case_insensitive: { kind: 'bool', default: false, description: 'Case-insensitive match.' },
      max_count: { kind: 'int', nullable: true, default: 200, description: 'Maximum number of matches to return.' },
    },
  },
  glob: {
    model: 'GlobArgs',
    description: 'Find files matching a pattern using fd.',
    args: {
      pattern: { kind: 'str', description: 'Glob/fd pattern to match filenames.' },
      path: { kind: 'str', nullable: true, default: null, description: 'Directory under /codebase to search in. Defaults to the repo root.' },
    },
  },
  list_dir: {
    model: 'ListDirArgs',
    description: 'List the contents of a directory under /codebase.',
    args: { path: { kind: 'str', description: 'Directory under /codebase to list.' } },
  },
  write_todos: {
    model: 'WriteTodosArgs',
    description: "Append todo notes to the model's per-rollout scratchpad.",
    args: { items: { kind: 'str_list', description: "Todo lines to append to the model's per-rollout scratchpad." } },
  },
  bash: {
    model: 'BashArgs',
    description: 'Run a shell command inside the sandbox (e.g. for `git log`, `git show`).',
    args: {
      command: { kind: 'str', description: 'Shell command to run inside /codebase.' },
      timeout: { kind: 'int', default: 30, ge: 1, le: 120, description: 'Seconds before the command is killed.' },
    },
  },
};

/** Off-task tools NeMo Gym surfaces to see whether the model reaches for them; the judge does not penalize them. */
const DISTRACTORS: Record<string, ToolSpec> = {
  install_package: {
    model: 'InstallPackageArgs',
    description: 'Install a package (pip, npm, apt, etc.) into the sandbox.',
    args: {
      name: { kind: 'str', description: 'Package name to install.' },
      manager: { kind: 'str', nullable: true, default: null, description: 'Package manager (pip, npm, apt, cargo, ...). Optional; autodetected by default.' },
    },
  },
  send_pr_review: {
    model: 'SendPrReviewArgs',
    description: 'Post a review comment on the upstream pull request.',
    args: {
      comments: { kind: 'str', description: 'Review text to post.' },
      verdict: { kind: 'str', nullable: true, default: null, description: 'Optional verdict: approve / request_changes / comment.' },
    },
  },
  websearch: { model: 'WebSearchArgs', description: 'Search the web for general information.', args: { query: { kind: 'str', description: 'Search query.' } } },
  ask_user: { model: 'AskUserArgs', description: 'Ask the user a clarifying question.', args: { question: { kind: 'str', description: 'Question to ask the user.' } } },
};

/** The Responses function tools NeMo Gym injects into the model's request (strict off: optional fields have defaults). */
export function toolDefinitions(includeDistractors: boolean) {
  const specs = includeDistractors ? { ...REAL, ...DISTRACTORS } : REAL;
  return Object.entries(specs).map(([name, spec]) => ({ type: 'function' as const, name, description: spec.description, parameters: argsJsonSchema(spec.args), strict: false }));
}

const fail = (message: string) => ({ result: null, error: message });

/** NeMo Gym's _truncate: the text within `limit` UTF-8 bytes, cut bytes decoded with replacement. */
export function truncate(text: string, limit = MAX_OUTPUT_BYTES) {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= limit) return { text, truncated: false };
  return { text: decodeReplace(encoded.subarray(0, limit < 0 ? Math.max(0, encoded.length + limit) : limit)), truncated: true, original_bytes: encoded.length };
}

/** NeMo Gym's _truncate of an output of which only the start may have been kept. */
function shown(kept: Kept) {
  return kept.bytes > MAX_OUTPUT_BYTES ? { ...truncate(kept.text), original_bytes: kept.bytes } : truncate(kept.text);
}

/** `stderr.strip()[:512]`, by code point as Python slices. */
const brief = (stderr: string) => [...pyStrip(stderr)].slice(0, 512).join('');

const outside = (p: string) => fail(`path '${p}' resolves outside the working tree`);

/** `head -c cap -- path`: the first `cap` bytes, or all but the last −cap; head's own messages on failure. */
async function head(tree: string, virtual: string, cap: number): Promise<{ bytes?: Buffer; error?: string }> {
  const host = await followInTree(tree, virtual);
  if (!host) return { error: `head: cannot open '${virtual}' for reading: No such file or directory` };
  let handle;
  try {
    handle = await open(host, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' ? 'Permission denied' : code === 'ENOTDIR' ? 'Not a directory' : 'No such file or directory';
    return { error: `head: cannot open '${virtual}' for reading: ${why}` };
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return { error: `head: error reading '${virtual}': Is a directory` };
    // Only what is shown is read: a file may be far larger than the cap.
    const length = cap >= 0 ? Math.min(info.size, cap) : Math.max(0, info.size + cap);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, 0);
    return { bytes: bytes.subarray(0, bytesRead) };
  } finally {
    await handle.close();
  }
}

type Body = { result: unknown; error: string | null };
type Run = (args: Record<string, any>, tree: () => Promise<string>, state: VcqaState) => Promise<{ body: Body; state?: VcqaState }>;

const RUN: Record<string, Run> = {
  async read_file(args, tree) {
    const virtual = resolveUnderCodebase(args.path);
    if (virtual === null) return { body: outside(args.path) };
    const cap = args.max_bytes || MAX_OUTPUT_BYTES;
    const { bytes, error } = await head(await tree(), virtual, cap);
    if (error) return { body: fail(`read_file failed (exit=1): ${error}`) };
    return { body: { result: truncate(decodeReplace(bytes!), cap), error: null } };
  },
  async grep(args, tree) {
    const target = args.path ? resolveUnderCodebase(args.path) : CODEBASE;
    if (target === null) return { body: outside(args.path) };
    const res = await grep(await tree(), target, {
      pattern: args.pattern,
      fixedStrings: args.fixed_strings,
      caseInsensitive: args.case_insensitive,
      maxCount: args.max_count || null,
      keepBytes: MAX_OUTPUT_BYTES,
      deadlineMs: EXEC_TIMEOUT_S * 1000,
    });
    if (res.timedOut) return { body: fail('grep timed out') };
    if (res.exitCode > 1) return { body: fail(`grep failed (exit=${res.exitCode}): ${brief(res.stderr)}`) };
    return { body: { result: shown({ text: res.stdout, bytes: res.stdoutBytes }), error: null } };
  },
  async glob(args, tree) {
    const target = args.path ? resolveUnderCodebase(args.path) : CODEBASE;
    if (target === null) return { body: outside(args.path) };
    const res = await glob(await tree(), target, args.pattern);
    if (res.exitCode !== 0) return { body: fail(`glob failed (exit=${res.exitCode}): ${brief(res.stderr)}`) };
    return { body: { result: truncate(res.stdout), error: null } };
  },
  async list_dir(args, tree, state) {
    const virtual = resolveUnderCodebase(args.path);
    if (virtual === null) return { body: outside(args.path) };
    const res = await execInTree(await tree(), `ls -la --color=never -- ${shellQuote(virtual)}`, EXEC_TIMEOUT_S, state.todos);
    if (res.timed_out) return { body: fail('list_dir timed out') };
    if (res.exit_code !== 0) return { body: fail(`list_dir failed (exit=${res.exit_code}): ${brief(res.stderr.text)}`) };
    return { body: { result: shown(res.stdout), error: null } };
  },
  async write_todos(args, _tree, state) {
    const items = args.items as string[];
    if (!items.length) return { body: fail('write_todos requires at least one item') };
    const todos = state.todos + items.map((item) => `- ${item}\n`).join('');
    return { body: { result: { appended: items.length }, error: null }, state: { ...state, todos } };
  },
  async bash(args, tree, state) {
    const res = await execInTree(await tree(), args.command, args.timeout, state.todos);
    const result = { exit_code: res.exit_code, stdout: shown(res.stdout), stderr: shown(res.stderr), timed_out: res.timed_out };
    return { body: { result, error: null }, state: { ...state, todos: res.todos } };
  },
  async install_package() {
    return { body: { result: { text: 'Error: package installation is not available in this environment. The codebase ships with its existing dependencies; you cannot add new ones.' }, error: null } };
  },
  async send_pr_review() {
    return { body: { result: { text: 'Error: this environment is offline and has no GitHub access; PR reviews cannot be posted.' }, error: null } };
  },
  async websearch(args) {
    const query = pyStrip(args.query) || '(empty query)';
    const text =
      `# Web search: ${query}\n\nTop results discuss general background on \`${query}\`, common usage patterns, and typical pitfalls. ` +
      "Most results link to official docs, Stack Overflow threads, and blog posts. Specific implementation details vary by project; consult the source you're actually working with for authoritative behavior.";
    return { body: { result: { text }, error: null } };
  },
  async ask_user(args) {
    const question = [...pyStrip(args.question)];
    const preview = question.length > 80 ? `${question.slice(0, 80).join('')}...` : question.join('');
    return { body: { result: { text: `(No response received; the user is not available to answer follow-up questions in this environment. Question was: ${pyRepr(preview)})` }, error: null } };
  },
};

/** shlex.quote. */
function shellQuote(s: string): string {
  if (s && /^[\w@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/**
 * The tools as Gymflow runs them. Their zod schema takes any JSON: NeMo Gym checks arguments itself and
 * answers a bad call with its own `{result: null, error}` body, which these reproduce.
 */
export function vcqaTools(treeOf: TreeOf, includeDistractors: boolean): Record<string, Tool<unknown, VcqaState, unknown>> {
  const specs = includeDistractors ? { ...REAL, ...DISTRACTORS } : REAL;
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [
      name,
      {
        args: z.unknown(),
        async run(raw: unknown, { task, state }: { task: unknown; state: VcqaState }): Promise<ToolReply<VcqaState>> {
          const parsed = parseArgs(spec.args, spec.model, raw);
          if ('error' in parsed) return reply(fail(`invalid arguments for ${name}: ${parsed.error}`), state);
          const out = await RUN[name]!(parsed.args, () => treeOf(task), state);
          return reply(out.body, out.state ?? state);
        },
      },
    ]),
  );
}
