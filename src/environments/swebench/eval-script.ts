// The script that tests a SWE-bench task once the model's patch is in: SWE-bench 4.1.0's eval script for
// the task's family (Python, JavaScript, the rest), as make_test_spec builds it, with the edits NeMo Gym's
// swebench server makes to it so its golden patches pass.
import { PyRegex } from '../../python/regex';
import { modifiedFiles, patchedFiles, patchedPath } from './diff';
import type { TaskSpec } from './specs';

/** Where SWE-bench's images hold the repository, and the conda environment its Python images test in. */
export const REPO_DIR = '/testbed';
const ENV_NAME = 'testbed';
const HEREDOC = 'EOF_114329324912';

/** The markers the script echoes (as `set -x` traces) around the test commands; the log between them is parsed. */
export const START_TEST_OUTPUT = '>>>>> Start Test Output';
export const END_TEST_OUTPUT = '>>>>> End Test Output';

/** Files a test patch touches that are never run as tests (SWE-bench's NON_TEST_EXTS; "csv" has no dot there). */
const NON_TEST_EXTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

export interface EvalInstance {
  instance_id: string;
  repo: string;
  version: string;
  base_commit: string;
  test_patch: string;
}

const DIRECTIVE = new PyRegex('diff --git a/.* b/(.*)');

/** SWE-bench's get_test_directives: the test files the patch touches, as the repository's runner names them. */
export function testDirectives(instance: Pick<EvalInstance, 'repo' | 'test_patch'>): string[] {
  if (instance.repo === 'swe-bench/humaneval') return ['test.py'];
  const directives = (DIRECTIVE.findall(instance.test_patch) as string[]).filter((d) => !NON_TEST_EXTS.some((ext) => d.endsWith(ext)));
  if (instance.repo !== 'django/django') return directives;
  // Django's runner takes dotted module names under tests/.
  return directives.map((d) => {
    let module = d.endsWith('.py') ? d.slice(0, -3) : d;
    if (module.startsWith('tests/')) module = module.slice('tests/'.length);
    return module.replaceAll('/', '.');
  });
}

function pythonScript(instance: EvalInstance, spec: TaskSpec): string[] {
  const testFiles = modifiedFiles(instance.test_patch);
  const reset = `git checkout ${instance.base_commit} ${testFiles.join(' ')}`;
  const testCommand = [spec.version.test_cmd as string, ...testDirectives(instance)].join(' ');
  return [
    'source /opt/miniconda3/bin/activate',
    `conda activate ${ENV_NAME}`,
    `cd ${REPO_DIR}`,
    ...(spec.version.eval_commands ?? []),
    `git config --global --add safe.directory ${REPO_DIR}`,
    `cd ${REPO_DIR}`,
    // Informational, for the record.
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${instance.base_commit}`,
    'source /opt/miniconda3/bin/activate',
    `conda activate ${ENV_NAME}`,
    ...(spec.version.install !== undefined ? [spec.version.install] : []),
    reset,
    `git apply -v - <<'${HEREDOC}'\n${instance.test_patch}\n${HEREDOC}`,
    `: '${START_TEST_OUTPUT}'`,
    testCommand,
    `: '${END_TEST_OUTPUT}'`,
    // Leaves the repository as it was before the tests.
    reset,
  ];
}

function commonScript(instance: EvalInstance, spec: TaskSpec): string[] {
  const testFiles = modifiedFiles(instance.test_patch);
  const reset = testFiles.length ? `git checkout ${instance.base_commit} ${testFiles.join(' ')}` : 'echo "No test files to reset"';
  const testCmd = spec.version.test_cmd;
  const tests = testCmd === undefined ? [] : typeof testCmd === 'string' ? [testCmd] : testCmd;
  return [
    `cd ${REPO_DIR}`,
    `git config --global --add safe.directory ${REPO_DIR}`,
    `cd ${REPO_DIR}`,
    reset,
    `git apply --verbose --reject - <<'${HEREDOC}'\n${instance.test_patch}\n${HEREDOC}`,
    ...(spec.version.build ?? []),
    `: '${START_TEST_OUTPUT}'`,
    ...tests,
    `: '${END_TEST_OUTPUT}'`,
    reset,
  ];
}

/** Calypso's versions whose jest config is test/<package>/jest.config.js, and those where it is .json. */
const CALYPSO_JS_CONFIG = ['10.10.0', '10.12.0', '10.13.0', '10.14.0', '10.15.2', '10.16.3'];
const CALYPSO_JSON_CONFIG = ['6.11.5', '8.9.1', '8.9.3', '8.9.4', '8.11.0', '8.11.2', '10.4.1', '10.5.0', '10.6.0', '10.9.0'];
const SNAPSHOT = new PyRegex('__snapshots__/(.*).js.snap$');

/** wp-calypso's test commands: one per file the test patch touches, by where it lives. */
function calypsoTests(instance: EvalInstance): string[] {
  const commands: string[] = [];
  for (const file of patchedFiles(instance.test_patch)) {
    let testPath = patchedPath(file);
    // Jest snapshots are not run themselves: the folder holding them is.
    if (SNAPSHOT.search(testPath)) testPath = testPath.split('/').slice(0, -2).join('/');
    if (['client', 'packages'].some((p) => testPath.startsWith(p))) {
      const pkg = testPath.split('/')[0];
      if (CALYPSO_JS_CONFIG.includes(instance.version)) commands.push(`./node_modules/.bin/jest --verbose -c=test/${pkg}/jest.config.js '${testPath}'`);
      else if (CALYPSO_JSON_CONFIG.includes(instance.version)) commands.push(`./node_modules/.bin/jest --verbose -c=test/${pkg}/jest.config.json '${testPath}'`);
      else commands.push(`npm run test-${pkg} --verbose '${testPath}'`);
    } else if (testPath.startsWith('test/e2e')) {
      commands.push('cd test/e2e', `NODE_CONFIG_ENV=test npm run test ${testPath}`, 'cd ../..');
    }
  }
  return commands;
}

/**
 * The JavaScript family: the common script, with wp-calypso's own test commands. (SWE-bench would also fetch a
 * row's `image_assets`; NeMo Gym's request model drops that field, so its scripts never do.)
 */
function javascriptScript(instance: EvalInstance, spec: TaskSpec): string[] {
  const lines = commonScript(instance, spec);
  if (instance.repo !== 'Automattic/wp-calypso') return lines;
  const start = lines.indexOf(`: '${START_TEST_OUTPUT}'`);
  const end = lines.indexOf(`: '${END_TEST_OUTPUT}'`);
  return [...lines.slice(0, start + 1), ...calypsoTests(instance), ...lines.slice(end)];
}

/** SWE-bench's TestSpec.eval_script. Throws DiffError when the test patch is not a diff unidiff reads. */
export function sweBenchEvalScript(instance: EvalInstance, spec: TaskSpec): string {
  const family = spec.repo.ext === 'py' ? pythonScript : spec.repo.ext === 'js' ? javascriptScript : commonScript;
  return ['#!/bin/bash', 'set -uxo pipefail', ...family(instance, spec)].join('\n') + '\n';
}

/**
 * NeMo Gym's edits to eval.sh (patch_swebench_multilingual_golden_patch_pass), made so the golden patches
 * pass in its sandboxes: Maven without its daemon, longer timeouts, a Gradle mirror script, a settled
 * cluster before one valkey assertion.
 */
export function nemoGymEvalScriptEdits(script: string, instanceId: string): string {
  let s = script.replaceAll('mvnd test', 'mvn test');
  if (instanceId === 'apache__druid-16875') s = s.replaceAll('mvn test', 'mvn test -Dgit.commit.id.skip=true');
  if (instanceId === 'apache__lucene-13494' || instanceId === 'reactivex__rxjava-7597') {
    s = s.replaceAll('./gradlew', './gradlew --init-script /root/.gradle/init.d/maven_central_mirror.gradle');
  }
  s = s.replaceAll('timeout 10s', 'timeout 120s');
  if (instanceId.includes('preactjs__preact')) s = s.replaceAll('npx karma start karma.conf.js', 'npx karma start karma.conf.js --client.mocha.timeout=60000');
  if (instanceId === 'valkey-io__valkey-928') {
    s = s.replaceAll(
      'TERM=dumb ./runtest',
      "sed -i 's/assert_equal \\[lindex \\[R 3 role\\] 2\\] {}/after 5000; assert_equal [lindex [R 3 role] 2] {}/' tests/unit/cluster/replica-migration.tcl\nTERM=dumb ./runtest",
    );
  }
  return s;
}
