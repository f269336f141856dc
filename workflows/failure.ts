// Turns the error a rollout stopped on into a sidecar entry: a failure class, a message and the
// attempt it was on. Pure, so it is tested without a server.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

export type RolloutStage = 'seed' | 'model' | 'tool' | 'verify' | 'record';

export interface FailureDescription {
  failureClass: string;
  message: string;
  stage: RolloutStage;
  attempt: number;
}

const CLASS_BY_STAGE: Record<RolloutStage, string> = {
  seed: 'env_error',
  model: 'model_error',
  tool: 'tool_error',
  verify: 'verify_error',
  record: 'internal',
};

const CLASS_BY_TYPE: Record<string, string> = { BadTask: 'bad_task', JudgeError: 'judge_failed' };

export function describeFailure(stage: RolloutStage, err: unknown, maximumAttempts: number): FailureDescription {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) {
    return { failureClass: 'timeout', message: `${stage} timed out (${cause.timeoutType})`, stage, attempt: maximumAttempts };
  }
  if (cause instanceof ApplicationFailure) {
    // A whole-rollout activity reports the stage it stopped in; a step activity's stage is the caller's.
    const detail = cause.details?.[0] as { attempt?: number; stage?: RolloutStage } | undefined;
    const at = detail?.stage ?? stage;
    return {
      failureClass: (cause.type && CLASS_BY_TYPE[cause.type]) ?? CLASS_BY_STAGE[at],
      message: cause.message,
      stage: at,
      attempt: detail?.attempt ?? maximumAttempts,
    };
  }
  return { failureClass: CLASS_BY_STAGE[stage], message: err instanceof Error ? err.message : String(err), stage, attempt: maximumAttempts };
}
