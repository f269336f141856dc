import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../workflows/failure';

const activityFailure = (cause: Error) => new ActivityFailure('activity failed', 'callModel', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, undefined, cause);

describe('failure classification', () => {
  it('classifies by the cause type first, then by the stage, and keeps the attempt', () => {
    const judge = ApplicationFailure.create({ type: 'JudgeError', message: 'judge unreachable', details: [{ attempt: 3 }] });
    expect(describeFailure('verify', activityFailure(judge), 3)).toEqual({ failureClass: 'judge_failed', message: 'judge unreachable', stage: 'verify', attempt: 3 });
    const model = ApplicationFailure.create({ type: 'ModelCallError', message: 'HTTP 502', details: [{ attempt: 2 }] });
    expect(describeFailure('model', activityFailure(model), 5).failureClass).toBe('model_error');
    expect(describeFailure('model', activityFailure(model), 5).attempt).toBe(2);
    const bad = ApplicationFailure.create({ type: 'BadTask', message: 'no field', nonRetryable: true, details: [{ attempt: 1 }] });
    expect(describeFailure('seed', activityFailure(bad), 3)).toMatchObject({ failureClass: 'bad_task', attempt: 1 });
    expect(describeFailure('tool', activityFailure(ApplicationFailure.create({ message: 'boom' })), 3)).toMatchObject({ failureClass: 'tool_error', attempt: 3 });
  });

  it('reports timeouts as their own class', () => {
    expect(describeFailure('model', activityFailure(new TimeoutFailure('timed out', undefined, 1 as never)), 3).failureClass).toBe('timeout');
  });
});
