// The simulator's record of one conversation (NeMo Gym's session state): customer, representative and tool
// messages as they enter, each checked on entry (tool names, argument and result schemas, a customer who
// ends before starting), and the first failure that ends the conversation. Pure: no model calls.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { AGENT_TRANSFER_INDICATOR, TRAJECTORY_COMPLETE_INDICATOR, toolParams } from './prompts';
import type { SimulationTask, ToolSignature } from './schema';

export type Source = 'user' | 'agent' | 'environment';

export interface VerificationResult {
  reward?: number;
  explanation?: string;
  judge_response?: string;
  generation_error?: string;
}

/** One message, in the shape NeMo Gym's result.trajectory.messages has (its raw simulator responses are in the run's call log). */
export interface TrajectoryMessage {
  type: 'text' | 'tool_call' | 'tool_execution';
  source: Source;
  response_id?: string;
  response_output_index?: number;
  text?: string;
  tool_call_id?: string | null;
  tool_name?: string | null;
  arguments?: string | null;
  deserialized_arguments?: unknown;
  execution_result?: string;
  deserialized_execution_result?: unknown;
  schema_valid?: boolean | null;
  verification_result?: VerificationResult;
}

export const INVALID = {
  messageGeneration: 'message_generation_error',
  userMessage: 'invalid_user_message',
  agentToolCall: 'invalid_agent_tool_call',
  toolExecution: 'invalid_environment_tool_execution',
  excessiveLength: 'excessive_length',
  verificationGeneration: 'verification_generation_error',
  noRewardUser: 'no_reward_user_message',
  noRewardEnvironment: 'no_reward_environment_message',
} as const;

export const LABEL = {
  user: 'user_failure',
  agent: 'agent_failure',
  tool: 'tool_failure',
  verificationGeneration: 'verification_generation_error',
  trajectory: 'trajectory_failure',
} as const;

export const labelFor = (source: Source) => ({ user: LABEL.user, agent: LABEL.agent, environment: LABEL.tool })[source];

export interface Trajectory {
  messages: TrajectoryMessage[];
  terminal_state: 'complete' | 'incomplete' | null;
  invalid_reasons: string[];
  failure_labels: string[];
  generation_invalid_reason: string | null;
  terminal_error: string | null;
  /** Every error that ended (or tried to end) the conversation; NeMo Gym keeps them in source_artifacts. */
  terminal_errors: string[];
  /** Policy responses so far: the policy agent's max_agent_steps counts these. */
  agent_steps: number;
}

export const newTrajectory = (): Trajectory => ({
  messages: [],
  terminal_state: null,
  invalid_reasons: [],
  failure_labels: [],
  generation_invalid_reason: null,
  terminal_error: null,
  terminal_errors: [],
  agent_steps: 0,
});

/** Ends the conversation as incomplete; reasons and labels are kept once each, in order. */
export function recordFailure(t: Trajectory, reason: string, label: string, error: string): void {
  t.generation_invalid_reason = reason;
  if (!t.invalid_reasons.includes(reason)) t.invalid_reasons.push(reason);
  if (!t.failure_labels.includes(label)) t.failure_labels.push(label);
  t.terminal_state = 'incomplete';
  t.terminal_error = error;
  t.terminal_errors.push(error);
}

export const endsConversation = (text: string) => text.includes(TRAJECTORY_COMPLETE_INDICATOR) || text.includes(AGENT_TRANSFER_INDICATOR);

const validators = new Map<string, ValidateFunction | Error>();

/** A validator per schema (JSON Schema 2020-12 unless the schema names another, formats not asserted), as jsonschema's validator_for. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let entry = validators.get(key);
  if (!entry) {
    try {
      entry = new Ajv2020({ strict: false, validateFormats: false, allErrors: false }).compile(schema);
    } catch (e) {
      entry = new Error(`invalid JSON Schema: ${(e as Error).message}`);
    }
    if (validators.size >= 512) validators.delete(validators.keys().next().value!);
    validators.set(key, entry);
  }
  return entry;
}

/** Why a value fails a schema, or null when it passes. */
function schemaProblem(schema: Record<string, unknown>, value: unknown): string | null {
  const validate = validatorFor(schema);
  if (validate instanceof Error) return validate.message;
  if (validate(value)) return null;
  const first = validate.errors?.[0];
  return first ? `${first.instancePath || '(root)'} ${first.message ?? 'is invalid'}` : 'is invalid';
}

function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export type Invalid = [reason: string, error: string];

const findTool = (task: SimulationTask, name: string | null | undefined): ToolSignature | undefined => task.tools.find((t) => t.name === name);

/** Checks a message as it enters the trajectory, filling its deserialized fields when it passes. */
export function validateMessage(task: SimulationTask, t: Trajectory, message: TrajectoryMessage): Invalid | null {
  if (message.type === 'text') {
    if (message.source === 'user' && t.messages.length === 0 && endsConversation(message.text ?? '')) {
      return [INVALID.userMessage, `The first message in a trajectory from the user contains an indicator that the trajectory is complete: ${message.text}`];
    }
    return null;
  }
  const tool = findTool(task, message.tool_name);
  if (message.type === 'tool_call') {
    if (!tool) return [INVALID.agentToolCall, `The tool ${message.tool_name ?? ''} in the tool call with the ID ${message.tool_call_id} is unknown`];
    const schema = toolParams(tool);
    if (!schema) return null;
    const parsed = parseJson(message.arguments ?? '');
    if ('error' in parsed) return [INVALID.agentToolCall, `The arguments string in the tool call with the ID ${message.tool_call_id} could not be converted to a JSON object: ${parsed.error}`];
    const problem = schemaProblem(schema, parsed.value);
    if (problem)
      return [INVALID.agentToolCall, `The arguments object in the tool call with the ID ${message.tool_call_id} is not valid under the ${tool.name} tool parameters JSON Schema: ${problem}`];
    message.deserialized_arguments = parsed.value;
    return null;
  }
  if (!tool) return [INVALID.toolExecution, `The tool ${message.tool_name ?? ''} in the tool execution with the ID ${message.tool_call_id} is unknown`];
  if (!tool.returns) return null;
  let result = String(message.execution_result ?? '');
  // A result in a ```json fence is read without it; the stored result keeps the fence.
  if (result.trim().startsWith('```json')) result = stripJsonFence(result);
  const parsed = parseJson(result);
  if ('error' in parsed) return [INVALID.toolExecution, `The execution result for the tool call with the ID ${message.tool_call_id} could not be converted to a JSON object: ${parsed.error}`];
  const problem = schemaProblem(tool.returns, parsed.value);
  if (problem)
    return [INVALID.toolExecution, `The execution result for the tool call with the ID ${message.tool_call_id} is not valid under the ${tool.name} tool return type JSON Schema: ${problem}`];
  message.deserialized_execution_result = parsed.value;
  return null;
}

/** Python's text.strip().removeprefix("```json").removesuffix("```"). */
export function stripJsonFence(text: string): string {
  let s = text.trim();
  if (s.startsWith('```json')) s = s.slice('```json'.length);
  if (s.endsWith('```')) s = s.slice(0, -3);
  return s;
}

/** A customer message: a first message that already ends the conversation is a user failure; ###STOP### or ###TRANSFER### completes it. */
export function addUserMessage(task: SimulationTask, t: Trajectory, message: TrajectoryMessage): void {
  const invalid = validateMessage(task, t, message);
  t.messages.push(message);
  if (invalid) recordFailure(t, invalid[0], LABEL.user, invalid[1]);
  else if (endsConversation(message.text ?? '')) t.terminal_state = 'complete';
}

export type AgentOutput = { type: 'message'; content: string; index: number } | { type: 'function_call'; name: string; call_id: string; arguments: string; index: number };

/**
 * One policy response's messages and calls, in the provider's order. A call whose id was used before, or that
 * fails its check, ends the conversation as an agent failure. Returns whether the conversation goes on.
 */
export function recordAgentOutputs(task: SimulationTask, t: Trajectory, outputs: readonly AgentOutput[]): boolean {
  if (t.terminal_state) return false;
  const known = new Set(t.messages.filter((m) => m.type === 'tool_call').map((m) => m.tool_call_id));
  for (const output of outputs) {
    const provenance = { response_output_index: output.index };
    if (output.type === 'message') {
      const message: TrajectoryMessage = { type: 'text', source: 'agent', ...provenance, text: output.content };
      const invalid = validateMessage(task, t, message);
      t.messages.push(message);
      if (invalid) {
        recordFailure(t, invalid[0], LABEL.agent, invalid[1]);
        return false;
      }
      continue;
    }
    const message: TrajectoryMessage = { type: 'tool_call', source: 'agent', ...provenance, tool_call_id: output.call_id, tool_name: output.name, arguments: output.arguments };
    if (known.has(output.call_id)) {
      t.messages.push(message);
      recordFailure(t, INVALID.agentToolCall, LABEL.agent, `The tool call ID ${output.call_id} is not unique within the trajectory.`);
      return false;
    }
    known.add(output.call_id);
    const invalid = validateMessage(task, t, message);
    t.messages.push(message);
    if (invalid) {
      recordFailure(t, invalid[0], LABEL.agent, invalid[1]);
      return false;
    }
  }
  return true;
}

/** A tool result for a recorded call; one that fails the tool's return schema ends the conversation as a tool failure. */
export function addToolResult(task: SimulationTask, t: Trajectory, call: TrajectoryMessage, output: string, responseId?: string): boolean {
  const message: TrajectoryMessage = {
    type: 'tool_execution',
    source: 'environment',
    ...(responseId ? { response_id: responseId } : {}),
    tool_call_id: call.tool_call_id,
    tool_name: call.tool_name,
    arguments: call.arguments,
    execution_result: output,
  };
  const invalid = validateMessage(task, t, message);
  message.schema_valid = invalid === null;
  t.messages.push(message);
  if (invalid) recordFailure(t, invalid[0], LABEL.tool, invalid[1]);
  return t.terminal_state === null;
}

/** The recorded calls without a result yet, in order. */
export function pendingCalls(t: Trajectory): TrajectoryMessage[] {
  const done = new Set(t.messages.filter((m) => m.type === 'tool_execution').map((m) => m.tool_call_id));
  return t.messages.filter((m) => m.type === 'tool_call' && !done.has(m.tool_call_id));
}

export function stepLimitReached(t: Trajectory, maxAgentSteps: number): void {
  if (t.terminal_state) return;
  recordFailure(t, INVALID.excessiveLength, LABEL.trajectory, `The maximum number of agent steps of ${maxAgentSteps} has been reached`);
}

/** The counts and transfer facts NeMo Gym's verify response carries at its top level. */
export function diagnostics(task: SimulationTask, t: Trajectory, enforceTransferGroundTruth: boolean) {
  const transferred = t.messages.some((m) => m.source === 'user' && typeof m.text === 'string' && m.text.includes(AGENT_TRANSFER_INDICATOR));
  const outsidePolicyScope = !!task.customer_scenario.outside_policy_scope;
  return {
    num_user_messages: t.messages.filter((m) => m.source === 'user').length,
    num_agent_messages: t.messages.filter((m) => m.source === 'agent').length,
    num_tool_calls: t.messages.filter((m) => m.type === 'tool_call').length,
    num_tool_results: t.messages.filter((m) => m.type === 'tool_execution').length,
    num_tool_schema_failures: t.messages.filter((m) => m.type === 'tool_execution' && m.schema_valid === false).length,
    outside_policy_scope: outsidePolicyScope,
    transferred,
    transfer_ground_truth_enforced: enforceTransferGroundTruth,
    transfer_ground_truth_mismatch: enforceTransferGroundTruth && transferred !== outsidePolicyScope,
  };
}
