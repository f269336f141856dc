// Puts each rollout step (a turn, verify-and-record) in a span of the rollout's own trace, and writes
// the rollout's root span when it is recorded or sent to the sidecar; the same for both grains.
import type { Attributes } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { rolloutId } from '../src/schemas/task';
import type { Journal } from '../src/store/journal';
import { endRolloutTrace, inRolloutStep, type RolloutTraceKey } from '../src/tracing/rollout';
import type { PlayedBy, RolloutKey, RolloutSpec, TurnResult } from './rollout-steps';
import type { FailureDescription } from './step-retry';

interface Steps {
  takeTurn(spec: RolloutSpec, key: RolloutKey, step: number, journal: Journal): Promise<TurnResult>;
  finishRollout(spec: RolloutSpec, key: RolloutKey, journal: Journal): Promise<{ reward: number }>;
  recordFailure(spec: RolloutSpec, key: RolloutKey, failure: FailureDescription): Promise<void>;
  playedBy(spec: RolloutSpec, key: RolloutKey): Promise<PlayedBy>;
}

function traceKey(spec: RolloutSpec, key: RolloutKey): RolloutTraceKey {
  return { runDir: spec.runDir, epoch: spec.epoch, rolloutId: rolloutId(key) };
}

/**
 * What a trace shows of a rollout: never prompts, answers or keys. The row's own environment and agent, as
 * its record names them, since a routed run plays each row its own way.
 */
function rolloutAttributes(spec: RolloutSpec, played: PlayedBy): Attributes {
  return {
    'gymflow.task_index': played.taskIndex,
    'gymflow.rollout_index': played.rolloutIndex,
    'gymflow.environment': played.environment,
    'gymflow.agent': played.agent,
    'gymflow.model.backend': spec.model.backend,
  };
}

function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

export function withRolloutTraces<S extends Steps>(steps: S): S {
  return {
    ...steps,
    takeTurn: (spec, key, step, journal) =>
      inRolloutStep(traceKey(spec, key), `turn ${step}`, { 'gymflow.step': step, 'gymflow.activity_attempt': attempt() }, async (span) => {
        const turn = await steps.takeTurn(spec, key, step, journal);
        span.setAttribute('gymflow.tool_calls', turn.toolCalls);
        if (turn.outcome) span.setAttribute('gymflow.recorded_before', true);
        return turn;
      }),
    async finishRollout(spec, key, journal) {
      const done = await inRolloutStep(traceKey(spec, key), 'finish', { 'gymflow.activity_attempt': attempt() }, () => steps.finishRollout(spec, key, journal));
      endRolloutTrace(traceKey(spec, key), { ...rolloutAttributes(spec, await steps.playedBy(spec, key)), 'gymflow.outcome': 'recorded', 'gymflow.reward': done.reward });
      return done;
    },
    async recordFailure(spec, key, failure) {
      await steps.recordFailure(spec, key, failure);
      const attributes = { ...rolloutAttributes(spec, await steps.playedBy(spec, key)), 'gymflow.outcome': 'failed', 'gymflow.failure_class': failure.failureClass, 'gymflow.stage': failure.stage };
      endRolloutTrace(traceKey(spec, key), attributes, failure.message);
    },
  } as S;
}
