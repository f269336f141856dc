// A task's git repository in a sandbox, for the SWE-style environments: made from a folder's files and
// committed as the task's base commit (the same files give the same commit everywhere), or found in the
// image; NeMo Gym's history scrub before an agent starts; a committer identity for agents that must commit.
import { GymError } from '../../errors';
import type { Sandbox } from '../../sandboxes/provider';
import { quote, runShell } from './shell';

/**
 * Who made a base commit, and when: fixed, and no system or user git config read, so a folder's files
 * always commit to the same id (a task row's base commit can name it).
 */
export const BASE_COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'Gymflow',
  GIT_AUTHOR_EMAIL: 'tasks@gymflow.invalid',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00+0000',
  GIT_COMMITTER_NAME: 'Gymflow',
  GIT_COMMITTER_EMAIL: 'tasks@gymflow.invalid',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00+0000',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
export const BASE_COMMIT_MESSAGE = 'Base commit';

/** The shell line that commits the workdir's files as its base commit (also how a task's base commit id is computed). */
export const COMMIT_BASE_LINE = `git -c init.defaultBranch=main init -q && git add -A && git -c commit.gpgsign=false commit -q --no-verify -m ${quote(BASE_COMMIT_MESSAGE)}`;

/** HEAD's commit id in `workdir`, or undefined when it is not a git repository with a commit. */
export async function headCommit(sandbox: Sandbox, workdir: string): Promise<string | undefined> {
  const result = await runShell(sandbox, 'git rev-parse --verify -q HEAD', { cwd: workdir });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

export interface BaseRepository {
  workdir: string;
  /** The commit the task names (SWE-bench's base_commit, DeepSWE's base_commit_hash): full, or a prefix of at least 7. */
  baseCommit: string;
  /** True when the files were written from a folder and are committed here; false when the image holds the repository. */
  fromFolder: boolean;
  /** Names the task in errors. */
  label: string;
  /** What to do when the image has no repository there (the error says it). */
  imageHint: string;
}

/**
 * The workdir as a repository at the task's base commit: the written files committed, or the image's
 * repository checked. A repository at another commit is the task's data disagreeing with itself: an error.
 */
export async function prepareBaseRepository(sandbox: Sandbox, repo: BaseRepository): Promise<void> {
  if (repo.fromFolder) {
    const made = await runShell(sandbox, COMMIT_BASE_LINE, { cwd: repo.workdir, env: BASE_COMMIT_ENV, timeoutMs: 120_000 });
    if (made.exitCode !== 0) throw new GymError('ENV_ERROR', `${repo.label}: cannot commit the repository in ${repo.workdir} (sandbox ${sandbox.id}): ${made.stderr.trim()}`);
  }
  const head = await headCommit(sandbox, repo.workdir);
  if (head === undefined) throw new GymError('SETUP_FAILED', `${repo.label}: the sandbox has no git repository in ${repo.workdir}: ${repo.imageHint}`);
  if (!head.startsWith(repo.baseCommit)) {
    throw new GymError(
      'BAD_TASK',
      `${repo.label}: the repository in ${repo.workdir} is at ${head}, not the task's base commit ${repo.baseCommit}${repo.fromFolder ? " (the folder's files do not commit to it: the row and its folder disagree)" : ''}`,
    );
  }
}

/**
 * NeMo Gym's scrub before an agent gets the sandbox (resources_servers/swebench/anti_cheat_setup.sh): the tree
 * reset to HEAD, HEAD the only branch (`_nel_work`), every other ref, remote and reflog deleted and the
 * objects they kept pruned, so no later commit (the fix) can be read from the history. Best effort, as there.
 */
export const HISTORY_SCRUB_LINE = [
  'git reset -q --hard',
  'base=$(git rev-parse HEAD) || exit 0',
  'mkdir -p .git/refs/heads',
  'echo "$base" > .git/refs/heads/_nel_work',
  'git symbolic-ref HEAD refs/heads/_nel_work',
  'rm -f .git/packed-refs .git/ORIG_HEAD .git/FETCH_HEAD .git/MERGE_HEAD',
  "find .git/refs -type f ! -path '*/heads/_nel_work' -delete",
  'rm -rf .git/refs/tags .git/refs/remotes .git/logs',
  'for r in $(git remote); do git remote remove "$r"; done',
  'git reflog expire --expire=now --expire-unreachable=now --all',
  'git gc --prune=now --quiet',
].join('\n');

export async function scrubHistory(sandbox: Sandbox, workdir: string): Promise<void> {
  await runShell(sandbox, HISTORY_SCRUB_LINE, { cwd: workdir, timeoutMs: 600_000 });
}

/** NeMo Gym's committer identity for agents that must commit (DeepSWE's agent sandbox). */
export const AGENT_IDENTITY = { email: 'agent@nemo-gym.local', name: 'NeMo Gym Agent' };

/**
 * The identity in the repository's own config: a harness runs with its own HOME, so a global one (NeMo
 * Gym's) would not be seen by its commits.
 */
export async function setCommitterIdentity(sandbox: Sandbox, workdir: string): Promise<void> {
  const line = `git config user.email ${quote(AGENT_IDENTITY.email)} && git config user.name ${quote(AGENT_IDENTITY.name)}`;
  const result = await runShell(sandbox, line, { cwd: workdir });
  if (result.exitCode !== 0) throw new GymError('ENV_ERROR', `cannot set git's committer identity in ${workdir} (sandbox ${sandbox.id}): ${result.stderr.trim()}`);
}
