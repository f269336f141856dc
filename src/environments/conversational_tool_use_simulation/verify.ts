// Grading a finished conversation as NeMo Gym's conversational_tool_use_simulation does: structural failures
// and a transfer that contradicts the scenario score 0 without a judge; otherwise customer and tool-result
// messages are judged first, then the representative's, then the representative's whole conversation.
import { JudgeError, type JudgeCall } from '../types';
import type { ConversationItem } from '../../schemas/responses';
import { conversationPrompt, judgeSystemPrompt, stepPrompt, type JudgedRole } from './prompts';
import type { SimulationTask } from './schema';
import { simulatorParams } from './simulate';
import { diagnostics, INVALID, LABEL, recordFailure, stripJsonFence, type Trajectory, type VerificationResult } from './trajectory';

export interface VerifySettings {
  enable_llm_judge: boolean;
  enable_termination: boolean;
  enforce_transfer_ground_truth: boolean;
  generation_attempts: number;
}

/** The first message's first non-empty text of a response, as NeMo Gym's _first_response_text reads it. */
export function firstMessageText(output: readonly ConversationItem[]): string | null {
  for (const item of output) {
    if (item.type !== 'message') continue;
    const content = (item as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const part of content as { text?: unknown }[]) if (typeof part?.text === 'string' && part.text) return part.text;
  }
  return null;
}

const PYDANTIC_TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const PYDANTIC_FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** Evaluation.model_validate_json in pydantic's lax JSON mode: a bool (or 0/1, or a bool-like string) and a string explanation. */
export function parseEvaluation(text: string): { success: boolean; explanation: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`ValidationError: Invalid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('ValidationError: Input should be an object');
  const { success, explanation } = value as Record<string, unknown>;
  let verdict: boolean | undefined;
  if (typeof success === 'boolean') verdict = success;
  else if (success === 0 || success === 1) verdict = success === 1;
  else if (typeof success === 'string' && PYDANTIC_TRUE.has(success.trim().toLowerCase())) verdict = true;
  else if (typeof success === 'string' && PYDANTIC_FALSE.has(success.trim().toLowerCase())) verdict = false;
  if (verdict === undefined) throw new Error('ValidationError: success: Input should be a valid boolean');
  if (typeof explanation !== 'string') throw new Error('ValidationError: explanation: Input should be a valid string');
  return { success: verdict, explanation };
}

/**
 * One judge evaluation, asked up to `attempts` times while the reply cannot be read as a verdict. A judge
 * call that fails (after the gateway's retries) is a JudgeError: the rollout goes to the sidecar, as NeMo
 * Gym's exhausted judge provider makes the rollout a transient failure rather than a score.
 */
async function judgeOnce(judge: JudgeCall, task: SimulationTask, role: JudgedRole, prompt: string, attempts: number): Promise<VerificationResult> {
  const input = [
    { role: 'system' as const, content: judgeSystemPrompt(task, role) },
    { role: 'user' as const, content: prompt },
  ];
  let generationError = '';
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt++) {
    let output: ConversationItem[];
    try {
      output = (await judge(simulatorParams(input))).output;
    } catch (e) {
      if (e instanceof JudgeError) throw e;
      throw new JudgeError(`judge call failed: ${(e as Error).message}`);
    }
    const text = firstMessageText(output);
    if (text === null) {
      generationError = 'RuntimeError: A response does not contain a message output';
      continue;
    }
    const canonical = stripJsonFence(text);
    try {
      const evaluation = parseEvaluation(canonical);
      return { reward: evaluation.success ? 1 : 0, explanation: evaluation.explanation, judge_response: canonical };
    } catch (e) {
      generationError = (e as Error).message;
    }
  }
  return { generation_error: generationError };
}

interface Staged {
  invalid: string[];
  agentReward: number;
  labels: string[];
}

async function stagedMessageChecks(judge: JudgeCall, task: SimulationTask, t: Trajectory, settings: VerifySettings): Promise<Staged> {
  const messages = t.messages;
  const judgeAt = async (index: number) => {
    const message = messages[index]!;
    const result = await judgeOnce(judge, task, message.source, stepPrompt(messages.slice(0, index), message), settings.generation_attempts);
    message.verification_result = result;
    return result.reward;
  };
  const generationFailure: Staged = { invalid: [INVALID.verificationGeneration], agentReward: 1, labels: [LABEL.verificationGeneration] };
  if (!settings.enable_termination) {
    const staged: Staged = { invalid: [], agentReward: 1, labels: [] };
    for (let i = 0; i < messages.length; i++) {
      const reward = await judgeAt(i);
      const source = messages[i]!.source;
      if (reward === undefined) {
        staged.invalid.push(INVALID.verificationGeneration);
        staged.labels.push(LABEL.verificationGeneration);
      } else if (reward < 1) {
        if (source === 'agent') staged.agentReward = Math.min(staged.agentReward, reward);
        staged.invalid.push(...(source === 'user' ? [INVALID.noRewardUser] : source === 'environment' ? [INVALID.noRewardEnvironment] : []));
        staged.labels.push(source === 'user' ? LABEL.user : source === 'agent' ? LABEL.agent : LABEL.tool);
      }
    }
    return staged;
  }
  // Customer and tool messages first: a failure there is the simulator's, and the representative is not judged.
  for (let i = 0; i < messages.length; i++) {
    const source = messages[i]!.source;
    if (source === 'agent') continue;
    const reward = await judgeAt(i);
    if (reward === undefined) return generationFailure;
    if (reward < 1) {
      return source === 'user' ? { invalid: [INVALID.noRewardUser], agentReward: 1, labels: [LABEL.user] } : { invalid: [INVALID.noRewardEnvironment], agentReward: 1, labels: [LABEL.tool] };
    }
  }
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.source !== 'agent') continue;
    const reward = await judgeAt(i);
    if (reward === undefined) return generationFailure;
    if (reward < 1) return { invalid: [], agentReward: 0, labels: [LABEL.agent] };
  }
  return { invalid: [], agentReward: 1, labels: [] };
}

const dedupe = (values: readonly string[]) => [...new Set(values)];

export interface Graded {
  reward: number;
  invalid: string[];
  labels: string[];
  judgeDiagnostics: Record<string, unknown>;
  agentVerification: Record<string, unknown>;
}

/** The message-level verification (NeMo Gym's verification_type "message"); writes each judged message's verdict into `t`. */
export async function judgeTrajectory(judge: JudgeCall, task: SimulationTask, t: Trajectory, settings: VerifySettings): Promise<Graded> {
  const staged = await stagedMessageChecks(judge, task, t, settings);
  let agentReward = staged.agentReward;
  let conversation: VerificationResult | null = null;
  if (!settings.enable_termination || (staged.invalid.length === 0 && agentReward > 0)) {
    conversation = await judgeOnce(judge, task, 'agent_conversation', conversationPrompt(t.messages), settings.generation_attempts);
    if (conversation.reward === undefined) {
      staged.invalid.push(INVALID.verificationGeneration);
      staged.labels.push(LABEL.verificationGeneration);
    } else {
      agentReward = Math.min(agentReward, conversation.reward);
      if (conversation.reward < 1) staged.labels.push(LABEL.agent);
    }
  }
  const invalid = dedupe(staged.invalid);
  const reward = invalid.length ? 0 : agentReward;
  return {
    reward,
    invalid,
    labels: dedupe(staged.labels),
    agentVerification: invalid.length
      ? { conversation_verification_result: conversation, overall_reward: null, trajectory_invalid_reasons: invalid }
      : { conversation_verification_result: conversation, overall_reward: agentReward, trajectory_invalid_reasons: null },
    judgeDiagnostics: {
      verification_type: 'message',
      enable_termination: settings.enable_termination,
      message_verification_results: t.messages.map((m, index) => ({
        index,
        type: m.type,
        source: m.source,
        tool_name: m.tool_name ?? null,
        reward: m.verification_result?.reward ?? null,
        explanation: m.verification_result?.explanation ?? null,
        generation_error: m.verification_result?.generation_error ?? null,
      })),
      conversation_verification_result: conversation,
    },
  };
}

const pyBool = (b: boolean) => (b ? 'True' : 'False');

/** NeMo Gym's mask_sample: the simulator's own failures (customer, tool, judge) are not the policy's to learn from. */
function maskSample(labels: readonly string[], generationInvalidReason: string | null): boolean {
  if (labels.some((l) => l === LABEL.user || l === LABEL.tool || l === LABEL.verificationGeneration)) return true;
  return labels.includes(LABEL.trajectory) && generationInvalidReason === INVALID.messageGeneration;
}

/** Verify: the reward, NeMo Gym's top-level diagnostics, and the trajectory with every verdict as `result`. */
export async function verifyTrajectory(task: SimulationTask, t: Trajectory, settings: VerifySettings, judge?: JudgeCall) {
  let facts = diagnostics(task, t, settings.enforce_transfer_ground_truth);
  let invalid = dedupe(t.invalid_reasons);
  let labels = dedupe(t.failure_labels);
  let reward: number;
  let judgeDiagnostics: Record<string, unknown> = {};
  let agentVerification: Record<string, unknown> | null = null;
  let judgeSkipped = false;
  if (t.terminal_state !== 'complete') {
    if (!invalid.length) {
      recordFailure(t, INVALID.messageGeneration, LABEL.trajectory, 'Trajectory reached verification without a complete terminal state.');
      invalid = dedupe(t.invalid_reasons);
      labels = dedupe(t.failure_labels);
      facts = diagnostics(task, t, settings.enforce_transfer_ground_truth);
    }
    reward = 0;
  } else if (invalid.length) {
    reward = 0;
  } else if (facts.transfer_ground_truth_mismatch) {
    reward = 0;
    labels = dedupe([...labels, LABEL.agent]);
    judgeSkipped = true;
    agentVerification = {
      conversation_verification_result: {
        reward: 0,
        explanation: `Deterministic transfer-ground-truth mismatch: expected transferred=${pyBool(facts.outside_policy_scope)}, observed transferred=${pyBool(facts.transferred)}.`,
      },
      overall_reward: 0,
      trajectory_invalid_reasons: null,
    };
  } else if (settings.enable_llm_judge && judge) {
    const graded = await judgeTrajectory(judge, task, t, settings);
    ({ reward, invalid, labels, judgeDiagnostics } = graded);
    agentVerification = graded.agentVerification;
  } else {
    reward = 1;
  }
  if (settings.enforce_transfer_ground_truth) {
    judgeDiagnostics = {
      ...judgeDiagnostics,
      transfer_ground_truth_enforcement: {
        expected_transfer: facts.outside_policy_scope,
        observed_transfer: facts.transferred,
        mismatch: facts.transfer_ground_truth_mismatch,
        judge_skipped: judgeSkipped,
      },
    };
  }
  const sourceArtifacts = t.terminal_errors.length
    ? { ...task.source_artifacts, terminal_errors: [...((task.source_artifacts.terminal_errors as string[] | undefined) ?? []), ...t.terminal_errors] }
    : task.source_artifacts;
  return {
    reward,
    ...(labels.length ? { failure_reason: labels.join(',') } : {}),
    ...facts,
    judge_skipped_for_transfer_mismatch: judgeSkipped,
    num_user_failures: labels.includes(LABEL.user) ? 1 : 0,
    num_agent_failures: labels.includes(LABEL.agent) ? 1 : 0,
    num_tool_failures: labels.includes(LABEL.tool) ? 1 : 0,
    terminal_state: t.terminal_state,
    trajectory_invalid_reasons: invalid,
    failure_labels: labels,
    judge_generation_error: null,
    judge_diagnostics: judgeDiagnostics,
    instance_config: { mask_sample: maskSample(labels, t.generation_invalid_reason) },
    result: {
      profile: task.profile ?? null,
      source_artifacts: sourceArtifacts,
      trajectory: {
        messages: t.messages,
        prefill_message_count: 0,
        continuation_start_index: 0,
        terminal_state: t.terminal_state,
        generation_invalid_reason: t.generation_invalid_reason,
        terminal_error: t.terminal_error,
        agent_verification_result: agentVerification,
        user_verification_result: null,
        environment_verification_result: null,
      },
    },
  };
}
