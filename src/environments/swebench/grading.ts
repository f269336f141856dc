// SWE-bench 4.1.0's grading of one test log (swebench/harness/grading.py): the log between the test markers
// read by the repository's parser, each FAIL_TO_PASS and PASS_TO_PASS test sorted into passed or failed,
// and the task resolved only when all of both pass.
import { GymError } from '../../errors';
import { END_TEST_OUTPUT, START_TEST_OUTPUT } from './eval-script';
import { LOG_PARSERS, type StatusMap } from './log-parsers';
import type { TaskSpec } from './specs';

/** Lines SWE-bench's harness writes into a log when a step failed: such a log is not graded. */
const BAD_CODES = ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out'];

export interface TestsReport {
  FAIL_TO_PASS: { success: string[]; failure: string[] };
  PASS_TO_PASS: { success: string[]; failure: string[] };
  FAIL_TO_FAIL: { success: string[]; failure: string[] };
  PASS_TO_FAIL: { success: string[]; failure: string[] };
}

export interface LogGrade {
  /** SWE-bench's patch_successfully_applied: the log has both markers and none of the failure lines. */
  graded: boolean;
  resolved: boolean;
  /** How each FAIL_TO_PASS / PASS_TO_PASS test went (SWE-bench's tests_status), when graded. */
  testsStatus?: TestsReport;
}

/** SWE-bench's get_logs_eval: the status of each test the log reports, or undefined when the log cannot be graded. */
export function logStatuses(spec: TaskSpec, instanceId: string, log: string): StatusMap | undefined {
  const parser = spec.repo.log_parser === null ? undefined : LOG_PARSERS[spec.repo.log_parser];
  // SWE-bench has no parser for a few repositories (a KeyError there): their tasks are never graded.
  if (!parser) throw new GymError('BAD_TASK', `SWE-bench 4.1.0 has no log parser for this repository${spec.repo.log_parser ? ` (${spec.repo.log_parser})` : ''}`);
  if (BAD_CODES.some((code) => log.includes(code))) return undefined;
  if (!(log.includes(START_TEST_OUTPUT) && log.includes(END_TEST_OUTPUT))) return undefined;
  const between = log.split(START_TEST_OUTPUT)[1]!.split(END_TEST_OUTPUT)[0]!;
  const statuses = parser(between, instanceId);
  // A runner writing to the other stream leaves nothing between the markers (its output is before them): the whole log is read then.
  return statuses.size > 0 ? statuses : parser(log, instanceId);
}

const passed = (test: string, statuses: StatusMap) => statuses.has(test) && ['PASSED', 'XFAIL'].includes(statuses.get(test)!);
const failed = (test: string, statuses: StatusMap) => !statuses.has(test) || ['FAILED', 'ERROR'].includes(statuses.get(test)!);

/** SWE-bench's get_eval_tests_report. A test neither passed nor failed (skipped) counts as neither. */
export function testsReport(statuses: StatusMap, failToPass: readonly string[], passToPass: readonly string[], failOnly: boolean): TestsReport {
  const sort = (tests: readonly string[]) => {
    const success: string[] = [];
    const failure: string[] = [];
    for (const test of tests) {
      if (failOnly) (statuses.get(test) === 'FAILED' ? failure : success).push(test);
      else if (passed(test, statuses)) success.push(test);
      else if (failed(test, statuses)) failure.push(test);
    }
    return { success, failure };
  };
  return { FAIL_TO_PASS: sort(failToPass), PASS_TO_PASS: sort(passToPass), FAIL_TO_FAIL: { success: [], failure: [] }, PASS_TO_FAIL: { success: [], failure: [] } };
}

/** The share of a group that passed; 1 for an empty group, as SWE-bench counts it. */
const share = (group: { success: string[]; failure: string[] }) => {
  const total = group.success.length + group.failure.length;
  return total === 0 ? 1 : group.success.length / total;
};

/** SWE-bench's get_eval_report for one task: resolved only at RESOLVED_FULL (every F2P and P2P test passed). */
export function gradeLog(spec: TaskSpec, task: { instance_id: string; failToPass: readonly string[]; passToPass: readonly string[] }, log: string): LogGrade {
  const statuses = logStatuses(spec, task.instance_id, log);
  if (!statuses) return { graded: false, resolved: false };
  const report = testsReport(statuses, task.failToPass, task.passToPass, spec.repo.fail_only);
  return { graded: true, resolved: share(report.FAIL_TO_PASS) === 1 && share(report.PASS_TO_PASS) === 1, testsStatus: report };
}
