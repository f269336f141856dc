// Which tests a SWE-bench task runs and how their log is read, per repository and version: SWE-bench 4.1.0's
// own table (data/swebench_specs.json, made by tests/environments/swebench.specs.py), and Gymflow's offline
// example repositories beside it.
import { z } from 'zod';
import specsJson from './data/swebench_specs.json';

export const VersionSpec = z.strictObject({
  /** One command (the Python family appends the test files to it) or the commands run in order. */
  test_cmd: z.union([z.string(), z.array(z.string())]).optional(),
  /** The Python family: lines run before the repository's checks, and its reinstall line. */
  eval_commands: z.array(z.string()).optional(),
  install: z.string().optional(),
  /** The other families: lines run after the test patch, before the tests. */
  build: z.array(z.string()).optional(),
});
export type VersionSpec = z.infer<typeof VersionSpec>;

export const RepoSpec = z.strictObject({
  /** SWE-bench's language key (MAP_REPO_TO_EXT): `py` picks the Python eval script, `js` the JavaScript one. */
  ext: z.string(),
  /** The name of SWE-bench's log parser for it (log-parsers.ts); null where SWE-bench has none. */
  log_parser: z.string().nullable(),
  /** Graded by failures alone (SWE-bench's FAIL_ONLY_REPOS): a test passes unless the log says it failed. */
  fail_only: z.boolean(),
  versions: z.record(z.string(), VersionSpec),
});
export type RepoSpec = z.infer<typeof RepoSpec>;

const SWEBENCH_SPECS = z.object({ source: z.string(), repos: z.record(z.string(), RepoSpec) }).parse(specsJson).repos;

/**
 * Gymflow's example repositories (data/repositories/): graded as SWE-bench grades django's tests, whose
 * runner is unittest's, by its verbose lines (`name (module.Class.name) ... ok`), so they run on a plain
 * python3 (the offline task image, a jail) with nothing installed.
 */
const STAND_IN_SPECS: Record<string, RepoSpec> = {
  'gymflow/textkit': { ext: 'py', log_parser: 'parse_log_django', fail_only: false, versions: { '0.1': { test_cmd: 'python3 -m unittest -v' } } },
};

export interface TaskSpec {
  repo: RepoSpec;
  version: VersionSpec;
}

/** The table's entry for a repository at a version, whether or not its tasks can be tested and graded. */
export function lookupSpec(repo: string, version: string): TaskSpec | undefined {
  const spec = STAND_IN_SPECS[repo] ?? SWEBENCH_SPECS[repo];
  const at = spec?.versions[version];
  return spec && at ? { repo: spec, version: at } : undefined;
}

/** The spec of a task's repository at its version, or why its tasks cannot be played (the message names what is missing). */
export function taskSpec(repo: string, version: string): TaskSpec | string {
  const spec = STAND_IN_SPECS[repo] ?? SWEBENCH_SPECS[repo];
  if (!spec)
    return `SWE-bench 4.1.0 has no test spec for repository ${repo} (its repositories: ${Object.keys(SWEBENCH_SPECS).length}, e.g. astropy/astropy, django/django, jqlang/jq; Gymflow's examples: ${Object.keys(STAND_IN_SPECS).join(', ')})`;
  const at = spec.versions[version];
  if (!at) return `SWE-bench 4.1.0 has no test spec for ${repo} at version ${version} (its versions: ${Object.keys(spec.versions).join(', ')})`;
  // SWE-bench cannot test these (a KeyError in its make_test_spec or get_logs_eval): say so before a harness plays them.
  if (at.test_cmd === undefined) return `SWE-bench 4.1.0's spec for ${repo} has no test command, so its tasks cannot be tested`;
  if (spec.log_parser === null) return `SWE-bench 4.1.0 has no log parser for ${repo}, so its tasks cannot be graded`;
  return { repo: spec, version: at };
}
