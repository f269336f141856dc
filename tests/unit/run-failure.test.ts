// A failed run's error as the CLI prints it: real Temporal failure objects, sent through the SDK's
// failure converter the way the client receives them, reduced to the application failure that broke it.
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, DefaultFailureConverter, defaultPayloadConverter, RetryState, TerminatedFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors';
import { runFailureError } from '../../src/cli/run-failure';

const converter = new DefaultFailureConverter();
/** What the client gets back: the failure as it travels in the workflow's history. */
const overTheWire = (e: Error) => converter.failureToError(converter.errorToFailure(e, defaultPayloadConverter), defaultPayloadConverter);

function failedRun(innermost: Error): WorkflowFailedError {
  const activity = new ActivityFailure('Activity task failed', 'recordRollout', '7', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker-1', innermost);
  const child = new ChildWorkflowFailure('default', { workflowId: 'gymflow-run-x/rollout-0-0', runId: 'r1' }, 'rolloutWorkflow', RetryState.NON_RETRYABLE_FAILURE, activity);
  return new WorkflowFailedError('Workflow execution failed', overTheWire(child), RetryState.NON_RETRYABLE_FAILURE);
}

describe('runFailureError', () => {
  it('prints the coded application failure under the child workflow and the activity, with its exit status', () => {
    // The activity envelope wraps the original error, whose own type is only "Error".
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/runs/a/rollouts.jsonl'"), { code: 'ENOSPC' });
    const e = failedRun(ApplicationFailure.create({ type: 'DISK_FULL', message: 'disk full at /runs/a/rollouts.jsonl', cause: enospc }));
    const err = runFailureError(e, '/runs/a')!;
    expect(err.code).toBe('DISK_FULL');
    expect(err.exitStatus).toBe(ERROR_CODES.DISK_FULL);
    expect(err.message).toBe('the run failed: disk full at /runs/a/rollouts.jsonl (DISK_FULL)');
    expect(err.details?.join('\n')).toMatch(/gym eval resume \/runs\/a/);
  });

  it('maps a PascalCase type that names a code, and keeps other types as RUN_FAILED with their name', () => {
    const bad = runFailureError(failedRun(ApplicationFailure.create({ type: 'BadInput', message: 'line 3: not valid JSON', nonRetryable: true })), '/r')!;
    expect(bad.code).toBe('BAD_INPUT');
    expect(bad.exitStatus).toBe(ERROR_CODES.BAD_INPUT);
    expect(bad.message).toBe('the run failed: line 3: not valid JSON (BadInput)');
    const other = runFailureError(failedRun(ApplicationFailure.create({ type: 'TypeError', message: "cannot read properties of undefined (reading 'x')" })), '/r')!;
    expect(other.code).toBe('RUN_FAILED');
    expect(other.message).toBe("the run failed: cannot read properties of undefined (reading 'x') (TypeError)");
  });

  it('recognises a raw ENOSPC that no activity turned into DISK_FULL', () => {
    const raw = Object.assign(new Error("ENOSPC: no space left on device, open '/runs/a/work/x.json.tmp'"), { code: 'ENOSPC' });
    const err = runFailureError(failedRun(raw), '/runs/a')!;
    expect(err.code).toBe('DISK_FULL');
    expect(err.message).toMatch(/^the run failed: ENOSPC: no space left on device/);
  });

  it('reports a run ended without an application failure (terminated) by the failure it has', () => {
    const e = new WorkflowFailedError('Workflow execution terminated', overTheWire(new TerminatedFailure('terminated by the operator')), RetryState.NON_RETRYABLE_FAILURE);
    const err = runFailureError(e, '/r')!;
    expect(err.code).toBe('RUN_FAILED');
    expect(err.message).toBe('the run failed: terminated by the operator');
  });

  it('leaves errors that are not a run failure alone', () => {
    expect(runFailureError(new Error('socket hang up'), '/r')).toBeUndefined();
  });
});
