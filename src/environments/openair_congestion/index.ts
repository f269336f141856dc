// NeMo Gym's openair_congestion: 5G RAN congestion control as a gymnasium episode over OpenAir's seeded
// synthetic replay. Each turn is exactly one tool call; the step reward is OpenAir's openair_v1 breakdown.
import { z } from 'zod';
import { jsonDumps, jsonLoads } from '../../python/json';
import type { ConversationItem, FunctionCallItem } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { asEnvironment, type GymInfo, type GymnasiumEnvironment, type GymStep } from '../gymnasium';
import { applySetpoints, emptyActionState, recordAction, type ActionState } from './dynamics';
import { guardrailRejection, type HistoryEntry } from './guardrail';
import type { Observation } from './observation';
import { renderObservation } from './render';
import { rewardBreakdown } from './rewards';
import { parseCall, type ToolArgs } from './tools';
import { buildTrajectory, CELL_CAPACITY_MBPS, sampleScenario, type Scenario } from './trajectory';

const REGIMES = ['prb_exhaustion', 'bursty', 'interference', 'prach_storm', 'qos_competition'] as const;

const RegimeMix = z.partialRecord(z.enum(REGIMES), z.number().min(0).max(1)).refine((mix) => Object.keys(mix).length === 0 || Math.abs(Object.values(mix).reduce((a, b) => a + b, 0) - 1) <= 1e-3, {
  message: 'regime_mix weights must sum to 1.0',
});

export const OpenAirTask = TaskRow.extend({
  seed: z.number().int().nonnegative().optional(),
  difficulty: z.number().min(0).max(1).optional(),
  regime_mix: RegimeMix.optional(),
  /** Evaluator metadata: never shown to the policy. */
  scenario_id: z.string().optional(),
  tier: z.literal('replay').optional(),
  max_steps: z.number().int().positive().optional(),
});
export type OpenAirTask = z.infer<typeof OpenAirTask>;

// The paired gymnasium agent's turn budget (NeMo Gym's config), which also caps a row's max_steps.
const AGENT_MAX_STEPS = 16;
const DEFAULT_MAX_STEPS = 60;
const PROTOCOL_VIOLATION_PENALTY = -1.0;
const HISTORY_KEEP = 32;
const HISTORY_MAX = 64;

export interface OpenAirState {
  maxSteps: number;
  stepIdx: number;
  agentSteps: number;
  /** The observation the policy last saw, with the effects of the setpoints in force. */
  current: Observation;
  setpoints: ActionState;
  history: HistoryEntry[];
  rejections: number;
  protocolViolations: number;
}

const scenarioOf = (task: OpenAirTask): Scenario => sampleScenario(task.seed ?? 0, task.difficulty ?? 0.5, task.regime_mix);
const budgetOf = (task: OpenAirTask) => Math.min(task.max_steps ?? DEFAULT_MAX_STEPS, AGENT_MAX_STEPS);

const toolOutput = (call: FunctionCallItem, result: unknown) => ({ call_id: call.call_id, output: jsonDumps(result) });

interface Transition {
  state: OpenAirState;
  observation: Observation;
  reward: number;
  done: boolean;
  info: GymInfo;
}

/** One replay step: guardrail, setpoints, the next observation and its reward. */
function replayStep(task: OpenAirTask, state: OpenAirState, name: string, argumentsText: string, args: ToolArgs): Transition {
  const prev = state.current;
  const rejection = guardrailRejection(name, args, {
    nCells: prev.cells.length,
    ueIdsByCell: new Map(prev.cells.map((c) => [c.cell_id, new Set(c.ues.map((u) => u.ue_id))])),
    history: state.history,
    nowS: state.stepIdx,
    parse: (text) => jsonLoads(text) as ToolArgs,
  });
  const accepted = rejection === null;
  const nextIdx = Math.min(state.stepIdx + 1, state.maxSteps);
  const base = buildTrajectory(scenarioOf(task), nextIdx + 1)[nextIdx]!;
  const setpoints = accepted && name !== 'noop' ? recordAction(state.setpoints, name, args) : state.setpoints;
  const observation = applySetpoints(prev, base, setpoints, CELL_CAPACITY_MBPS);
  const breakdown = rewardBreakdown(prev, observation, name, !accepted, CELL_CAPACITY_MBPS);
  let history = accepted ? [...state.history, { name, arguments: argumentsText, t_s: state.stepIdx }] : state.history;
  if (history.length > HISTORY_MAX) history = history.slice(-HISTORY_KEEP);
  observation.agent_aux = { last_action: { name, arguments: argumentsText }, last_reward: breakdown.total, last_rejection: rejection, step_idx: nextIdx };
  return {
    state: { ...state, stepIdx: nextIdx, current: observation, setpoints, history, rejections: state.rejections + (accepted ? 0 : 1) },
    observation,
    reward: breakdown.total,
    done: nextIdx >= state.maxSteps,
    info: {
      guardrail_accepted: accepted,
      rejection_reason: rejection,
      step_idx: nextIdx,
      reward_version: 'openair_v1',
      reward_measurements: breakdown.measurements,
      reward_terms: breakdown.terms,
    },
  };
}

function finish(t: Transition, state: OpenAirState, info: GymInfo): GymStep<OpenAirState> {
  const terminated = t.done;
  return {
    observation: renderObservation(t.observation),
    reward: t.reward,
    terminated,
    truncated: !terminated && state.agentSteps >= state.maxSteps,
    info: { ...t.info, ...info },
    state: t.state,
  };
}

/** A turn that is not exactly one well-formed call advances as noop, with a surcharge. */
function protocolViolation(task: OpenAirTask, state: OpenAirState, error: string, message: string, toolOutputs: unknown[]): GymStep<OpenAirState> {
  const t = replayStep(task, state, 'noop', '{}', new Map());
  const reward = t.reward + PROTOCOL_VIOLATION_PENALTY;
  t.observation.agent_aux = { ...t.observation.agent_aux, last_reward: reward, last_rejection: message };
  const terms = { ...(t.info.reward_terms as Record<string, number>), protocol_violation: PROTOCOL_VIOLATION_PENALTY, total: reward };
  return finish({ ...t, reward, state: { ...t.state, protocolViolations: t.state.protocolViolations + 1 } }, state, {
    reward_terms: terms,
    error,
    message,
    protocol_violation: true,
    guardrail_accepted: false,
    rejection_reason: message,
    tool_outputs: toolOutputs,
  });
}

const NO_TOOL_CALL = 'No tool call detected. Issue exactly one tool call per turn from the configured action space (use `noop` to stand pat). Applied penalized noop.';
const MULTIPLE_CALLS = 'Exactly one tool call is required; applied penalized noop.';

export const openAirCongestionGym: GymnasiumEnvironment<OpenAirTask, OpenAirState> = {
  name: 'openair_congestion',
  description: '5G RAN congestion control over a seeded synthetic KPI replay: one tool call per turn (seven actuators or noop); reward is the sum of the openair_v1 step rewards.',
  taskSchema: OpenAirTask,
  maxSteps: AGENT_MAX_STEPS,
  reset(task) {
    const maxSteps = budgetOf(task);
    const [first] = buildTrajectory(scenarioOf(task), 1);
    const state: OpenAirState = { maxSteps, stepIdx: 0, agentSteps: 0, current: first!, setpoints: emptyActionState(), history: [], rejections: 0, protocolViolations: 0 };
    return { observation: renderObservation(first!), info: { seed: task.seed ?? 0, scenario_id: task.scenario_id ?? null, tier: 'replay' }, state };
  },
  step(task, before, turn: readonly ConversationItem[]) {
    const state = { ...before, agentSteps: before.agentSteps + 1 };
    const calls = turn.filter((item): item is FunctionCallItem => item.type === 'function_call');
    if (calls.length === 0) return protocolViolation(task, state, 'no_tool_call', NO_TOOL_CALL, []);
    if (calls.length > 1) {
      return protocolViolation(
        task,
        state,
        'multiple_tool_calls',
        MULTIPLE_CALLS,
        calls.map((c) => toolOutput(c, { accepted: false, error: MULTIPLE_CALLS })),
      );
    }
    const call = calls[0]!;
    const parsed = parseCall(call.name, call.arguments);
    if ('error' in parsed) {
      return protocolViolation(task, state, 'invalid_tool_call', 'Invalid tool call rejected; applied penalized noop.', [toolOutput(call, { accepted: false, error: parsed.error })]);
    }
    const argumentsText = call.arguments.trim() ? call.arguments : '{}';
    const t = replayStep(task, state, call.name, argumentsText, parsed.args);
    const outcome = { accepted: t.info.guardrail_accepted, rejection_reason: t.info.rejection_reason, step_idx: t.info.step_idx };
    return finish(t, state, { tool_outputs: [toolOutput(call, outcome)] });
  },
  failureReason(episode) {
    if (episode.state.protocolViolations) return 'protocol_violation';
    return episode.state.rejections ? 'guardrail_rejection' : undefined;
  },
};

export const openAirCongestion = asEnvironment(openAirCongestionGym);
