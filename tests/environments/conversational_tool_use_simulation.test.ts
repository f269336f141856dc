// conversational_tool_use_simulation against NeMo Gym: re-verifying its five recorded rollouts gives the
// recorded rewards, labels, reasons and verdicts; on 28 edge cases the loop (reset/step) sends the same
// customer, tool and judge prompts as NeMo Gym's own server driven the way its agent drives it, and verify
// answers the same; verify also replays a stored transcript alone to the same reward.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConversationalToolUseSimulation, conversationalToolUseSimulation as env, SimulationTask } from '../../src/environments/conversational_tool_use_simulation';
import { conversationJudgeExchanges, isConversationRow, withWholeConversation } from '../../src/environments/conversational_tool_use_simulation/recorded';
import type { SimulationState } from '../../src/environments/conversational_tool_use_simulation/simulate';
import type { TrajectoryMessage } from '../../src/environments/conversational_tool_use_simulation/trajectory';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import type { JudgeCall } from '../../src/environments/types';
import { replayJudge } from '../../src/reverify/judge';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { FIXTURES, readJsonl } from './nemo_fixtures';

type Row = Record<string, any>;
const recorded = readJsonl<Row>(path.join(FIXTURES, 'conversational_tool_use_simulation', 'example_rollouts.jsonl'));

const messageView = (m: TrajectoryMessage) => ({
  type: m.type,
  source: m.source,
  text: m.text ?? null,
  execution_result: m.execution_result ?? null,
  schema_valid: m.schema_valid ?? null,
  reward: m.verification_result?.reward ?? null,
});

describe('conversational_tool_use_simulation re-verifies NeMo Gym recorded rollouts', () => {
  it.each(recorded.map((row, i) => [i, row] as const))('rollout %i: recorded reward, labels, reasons and every verdict', async (_i, row) => {
    if (!isConversationRow(row)) throw new Error('not a conversation row');
    const recordedAgent: Row | null = row.result.trajectory.agent_verification_result ?? null;
    const whole = withWholeConversation(row);
    const task = SimulationTask.parse(whole);
    const judge = replayJudge(conversationJudgeExchanges(row));
    // No session: verify rebuilds the trajectory from the transcript, as a re-verification does.
    const r: Row = await env.verify(task, whole.response as ResponseObject, { state: env.seedSession(task) as SimulationState, judge });
    expect(r).toMatchObject({
      reward: row.reward,
      failure_labels: row.failure_labels,
      trajectory_invalid_reasons: row.trajectory_invalid_reasons,
      terminal_state: row.terminal_state,
      instance_config: row.instance_config,
      num_user_messages: row.num_user_messages,
      num_agent_messages: row.num_agent_messages,
      num_tool_calls: row.num_tool_calls,
      num_tool_results: row.num_tool_results,
      num_tool_schema_failures: row.num_tool_schema_failures,
      transferred: row.transferred,
      transfer_ground_truth_mismatch: row.transfer_ground_truth_mismatch,
    });
    const ours = r.result.trajectory.messages as TrajectoryMessage[];
    const theirs = row.result.trajectory.messages as TrajectoryMessage[];
    expect(ours.map(messageView)).toEqual(theirs.map(messageView));
    expect(ours.map((m) => m.deserialized_arguments ?? null)).toEqual(theirs.map((m) => m.deserialized_arguments ?? null));
    expect(r.result.trajectory.agent_verification_result?.overall_reward ?? null).toBe(recordedAgent?.overall_reward ?? null);
  });
});

interface Case {
  name: string;
  settings: Record<string, unknown>;
  task: Row;
  policy: ConversationItem[][];
  customer: (string | null)[];
  tool: (string | null)[];
  judge: (string | null)[];
  asked: { role: string; input: unknown }[];
  transcript: ConversationItem[];
  verdict: Row;
}
const cases = readJsonl<Case>(path.join(import.meta.dirname, 'conversational_tool_use_simulation.cases.jsonl'));

function roleOf(system: string): 'customer' | 'tool' | 'judge' {
  if (system.startsWith('# Instructions\n- You are playing the role of a customer')) return 'customer';
  if (system.startsWith('# Instructions\n- Your task is to generate the result of executing a tool')) return 'tool';
  return 'judge';
}

/** One model for the three roles, answering each role's calls in order with the case's scripted replies. */
function scripted(c: Case) {
  const queues = { customer: [...c.customer], tool: [...c.tool], judge: [...c.judge] };
  const asked: Case['asked'] = [];
  const model: JudgeCall = async (params) => {
    const input = (params.input as { role: string; content: string }[]).map(({ role, content }) => ({ role, content }));
    const role = roleOf(input[0]!.content);
    asked.push({ role, input });
    const text = queues[role].shift();
    if (text === undefined) throw new Error(`no scripted ${role} reply left`);
    return { id: `resp_${asked.length}`, object: 'response', output: text === null ? [] : [assistantMessage(text)] };
  };
  return { model, asked };
}

function verdictView(r: Row): Row {
  const trajectory = r.result.trajectory;
  const { conversation_verification_result: conversation, ...agent } = trajectory.agent_verification_result ?? {};
  return {
    ...Object.fromEntries(Object.keys(cases[0]!.verdict).map((k) => [k, r[k]])),
    generation_invalid_reason: trajectory.generation_invalid_reason,
    messages: (trajectory.messages as TrajectoryMessage[]).map(messageView),
    agent_verification_result: agent,
    conversation_reward: conversation?.reward ?? null,
    transfer_ground_truth_enforcement: r.judge_diagnostics.transfer_ground_truth_enforcement ?? null,
  };
}

describe('conversational_tool_use_simulation against NeMo Gym on edge cases', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const environment = createConversationalToolUseSimulation(c.settings);
    const task = SimulationTask.parse(c.task);
    const { model, asked } = scripted(c);
    const start = await environment.reset!(task, { model });
    let state = start.state;
    const transcript: ConversationItem[] = [...start.items];
    let done = state.trajectory.terminal_state !== null;
    for (const turn of c.policy) {
      if (done) break;
      const reply = await environment.step!(task, state, turn, { model });
      transcript.push(...turn, ...reply.items);
      state = reply.state;
      done = reply.done;
    }
    const response: ResponseObject = { id: 'r', object: 'response', output: transcript };
    const r: Row = await environment.verify(task, response, { state, judge: model });
    expect(asked).toEqual(c.asked);
    expect(transcript).toEqual(c.transcript);
    expect(verdictView(r)).toEqual(c.verdict);
    // The transcript alone replays to the same reward (re-verification), with the judge asked the same.
    const again = scripted(c);
    const replayed: Row = await environment.verify(task, response, { state: environment.seedSession(task) as SimulationState, judge: again.model });
    expect(replayed.reward).toBe(c.verdict.reward);
  });
});
