// A SWE-bench task row as NeMo Gym's swebench server takes it (resources_servers/swebench/task_data.py): the
// HuggingFace instance's fifteen fields, all strings, FAIL_TO_PASS/PASS_TO_PASS JSON-encoded lists, at the top
// level beside responses_create_params; Verified and Multilingual rows alike. Checked when the run's input is.
import path from 'node:path';
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { PROJECT_ROOT, readTextFolder } from '../sandboxed/text-folder';
import { DiffError, modifiedFiles } from './diff';
import { taskSpec, type TaskSpec } from './specs';

const TestList = z.array(z.string());

/** A JSON-encoded list of test names, as SWE-bench's datasets (and NeMo Gym's rows) carry them. */
export function testNames(text: string): string[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `is not JSON (${(e as Error).message}); it must be a JSON-encoded list of test names, e.g. "[\\"tests/test_x.py::test_a\\"]"`;
  }
  const parsed = TestList.safeParse(value);
  return parsed.success ? parsed.data : 'must be a JSON-encoded list of test names (strings)';
}

export const SwebenchRow = TaskRow.extend({
  /** The GitHub repository, e.g. `astropy/astropy`: picks the test spec and log parser. */
  repo: z.string(),
  instance_id: z.string(),
  /** The commit the repository is at before the model's patch. */
  base_commit: z.string(),
  /** The reference fix (what golden-patch verification applies, and the mock model's oracle). */
  patch: z.string(),
  /** The tests' diff, applied before they run. */
  test_patch: z.string(),
  problem_statement: z.string(),
  hints_text: z.string(),
  created_at: z.string(),
  /** The repository's version: picks the test spec within the repository. */
  version: z.string(),
  /** JSON-encoded lists of test names: those the fix must make pass, and those it must keep passing. */
  FAIL_TO_PASS: z.string(),
  PASS_TO_PASS: z.string(),
  environment_setup_commit: z.string(),
  difficulty: z.string(),
  subset: z.string(),
  split: z.string(),
  /**
   * Gymflow's, for tasks whose repository is not in an image: a folder (absolute, or relative to the
   * project's root) holding the repository's files at base_commit, committed in the sandbox as it.
   * Without it, the sandbox's image must hold the repository in /testbed, as SWE-bench's images do.
   */
  repository_folder: z.string().min(1).optional(),
});

/** A row whose spec, test lists, test patch and repository folder were all checked. */
export const SwebenchTask = SwebenchRow.superRefine((row, ctx) => {
  const spec = taskSpec(row.repo, row.version);
  if (typeof spec === 'string') ctx.addIssue({ code: 'custom', path: [spec.includes(' at version ') ? 'version' : 'repo'], message: spec });
  for (const field of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
    const names = testNames(row[field]);
    if (typeof names === 'string') ctx.addIssue({ code: 'custom', path: [field], message: names });
  }
  try {
    modifiedFiles(row.test_patch);
  } catch (e) {
    if (!(e instanceof DiffError)) throw e;
    ctx.addIssue({ code: 'custom', path: ['test_patch'], message: `is not a diff SWE-bench can read (${e.message})` });
  }
  if (row.repository_folder !== undefined) {
    try {
      repositoryFiles(row);
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['repository_folder'], message: (e as Error).message });
    }
  }
});
export type SwebenchTask = z.infer<typeof SwebenchRow>;

/** The task's spec; the row was checked, so it has one. */
export function specOf(task: SwebenchTask): TaskSpec {
  return taskSpec(task.repo, task.version) as TaskSpec;
}

export const failToPass = (task: SwebenchTask) => testNames(task.FAIL_TO_PASS) as string[];
export const passToPass = (task: SwebenchTask) => testNames(task.PASS_TO_PASS) as string[];

const folders = new Map<string, Record<string, string>>();

/** The repository's files from the row's folder (read once per process), or none when the image holds it. */
export function repositoryFiles(task: { repository_folder?: string | undefined }): Record<string, string> {
  if (task.repository_folder === undefined) return {};
  const dir = path.resolve(PROJECT_ROOT, task.repository_folder);
  let files = folders.get(dir);
  if (!files) {
    files = readTextFolder(dir, `repository_folder ${task.repository_folder}`);
    folders.set(dir, files);
  }
  return files;
}
