// The texts the simulated customer, the simulated tools and the judge are shown, rendered as NeMo Gym's
// conversational_tool_use_simulation renders them: its prompt templates are kept as files in prompts/.
import { readFileSync } from 'node:fs';
import { jsonDumps } from '../../python/json';
import type { CustomerScenario, SimulationTask, ToolSignature } from './schema';
import type { TrajectoryMessage } from './trajectory';

export const TRAJECTORY_COMPLETE_INDICATOR = '###STOP###';
export const AGENT_TRANSFER_INDICATOR = '###TRANSFER###';

const template = (name: string) => readFileSync(new URL(`./prompts/${name}.txt`, import.meta.url), 'utf8');

export const TEMPLATES = {
  policy: template('policy'),
  policyParallel: template('policy_parallel'),
  userSimulator: template('user_simulator'),
  toolSimulator: template('tool_simulator'),
  judgeUserMessage: template('judge_user_message'),
  judgeAgentMessage: template('judge_agent_message'),
  judgeToolResult: template('judge_tool_result'),
  judgeAgentConversation: template('judge_agent_conversation'),
};

/** The judge's answer shape, as pydantic's model_json_schema() of NeMo Gym's Evaluation prints it. */
export const EVALUATION_SCHEMA = jsonDumps({
  properties: {
    success: { description: 'True for an evaluation of success, or false for an evaluation of failure.', title: 'Success', type: 'boolean' },
    explanation: { description: 'An explanation for the evaluation.', title: 'Explanation', type: 'string' },
  },
  required: ['success', 'explanation'],
  title: 'Evaluation',
  type: 'object',
});

/** Python's str.format over `{name}` fields, in one pass: a value holding braces is not expanded again. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (field, name: string) => (Object.hasOwn(values, name) ? values[name]! : field));
}

/** Python's str(x) of what a prompt interpolates: None prints as "None". */
const str = (value: unknown) => (value === null || value === undefined ? 'None' : String(value));

const indent = (text: string) =>
  text
    .split(/(?<=\n)/)
    .map((line) => (line.trim() ? `\t${line}` : line))
    .join('');

/** CustomerScenario.create_string: the scenario as the customer, the tool simulator and the judge read it. */
export function scenarioText(scenario: CustomerScenario, includeDomain = false): string {
  const lines = ['Customer persona:', indent(scenario.customer_persona)];
  if (includeDomain) lines.push(`Domain of representative: ${str(scenario.representative_domain)}`);
  lines.push('Reason for contacting representative:', indent(scenario.reason_for_contact), 'Customer details:', indent(scenario.customer_details));
  if (scenario.unknown_info !== null && scenario.unknown_info !== undefined) lines.push('Unknown info:', indent(scenario.unknown_info));
  lines.push('Task instructions:', indent(scenario.task_instructions));
  return lines.join('\n');
}

/** The policy's system prompt a row must carry (the policy agent refuses a row whose prompt differs). */
export function policySystemPrompt(policy: string, parallelToolCalls: boolean): string {
  return fill(parallelToolCalls ? TEMPLATES.policyParallel : TEMPLATES.policy, { domain_policy: policy });
}

export const toolDoc = (tool: ToolSignature) => tool.doc ?? tool.description ?? '';
export const toolParams = (tool: ToolSignature) => tool.params ?? tool.parameters ?? null;

/** A tool as the policy model is offered it (Responses function tool). */
export function responsesTool(tool: ToolSignature) {
  return { type: 'function', name: tool.name, description: toolDoc(tool), parameters: toolParams(tool) ?? { type: 'object', properties: {} }, strict: tool.strict };
}

export function toolDefinitions(tools: readonly ToolSignature[]): string {
  return tools
    .map(
      (tool) =>
        `<tool>\nName: ${tool.name}\nDocumentation: ${toolDoc(tool)}\nParameters in JSON Schema format: ${jsonDumps(toolParams(tool))}\nReturn type in JSON Schema format: ${jsonDumps(tool.returns ?? null)}\n</tool>`,
    )
    .join('\n\n');
}

/** One step of the conversation as the judge reads it. */
export function formatStep(message: TrajectoryMessage): string {
  if (message.type === 'text') {
    const sender = message.source === 'user' ? 'Customer' : 'Representative';
    return `<message>\nSender: ${sender}\nContent: ${str(message.text)}\n</message>`;
  }
  if (message.type === 'tool_call') {
    return `<execute_tool>\nExecution ID: ${str(message.tool_call_id)}\nTool name: ${str(message.tool_name)}\nArguments for execution: ${str(message.arguments)}\n</execute_tool>`;
  }
  return `<tool_result>\nExecution ID: ${str(message.tool_call_id)}\nExecution result: ${str(message.execution_result)}\n</tool_result>`;
}

export const formatSteps = (messages: readonly TrajectoryMessage[]) => messages.map(formatStep).join('\n\n');

export function stepPrompt(previous: readonly TrajectoryMessage[], current: TrajectoryMessage): string {
  return `<previous_steps>\n${formatSteps(previous)}\n</previous_steps>\n\n<current_step>\n${formatStep(current)}\n</current_step>`;
}

export const conversationPrompt = (messages: readonly TrajectoryMessage[]) => `<steps>\n${formatSteps(messages)}\n</steps>`;

export type JudgedRole = 'user' | 'agent' | 'environment' | 'agent_conversation';

/** The judge's system prompt for one kind of evaluation. */
export function judgeSystemPrompt(task: SimulationTask, role: JudgedRole): string {
  const values = {
    policy: task.policy,
    customer_scenario: scenarioText(task.customer_scenario),
    tool_definitions: toolDefinitions(task.tools),
    evaluation_schema: EVALUATION_SCHEMA,
    complete_indicator: TRAJECTORY_COMPLETE_INDICATOR,
    transfer_indicator: AGENT_TRANSFER_INDICATOR,
    transfer_instruction: task.customer_scenario.outside_policy_scope ? '' : 'not ',
  };
  const text = { user: TEMPLATES.judgeUserMessage, agent: TEMPLATES.judgeAgentMessage, environment: TEMPLATES.judgeToolResult, agent_conversation: TEMPLATES.judgeAgentConversation }[role];
  return fill(text, values);
}

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The customer's view: the customer's own messages are the model's (assistant), the representative's come in as user turns. */
export function userSimulatorInput(task: SimulationTask, messages: readonly TrajectoryMessage[]): PromptMessage[] {
  const system = fill(TEMPLATES.userSimulator, {
    complete_indicator: TRAJECTORY_COMPLETE_INDICATOR,
    transfer_indicator: AGENT_TRANSFER_INDICATOR,
    customer_scenario: scenarioText(task.customer_scenario, true),
  });
  const input: PromptMessage[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.type !== 'text') continue;
    input.push(m.source === 'user' ? { role: 'assistant', content: `Customer: ${str(m.text)}` } : { role: 'user', content: `Representative: ${str(m.text)}` });
  }
  return input;
}

const toolRequest = (conversation: string[], name: unknown, args: unknown) =>
  `${conversation.length ? `<conversation>\n${conversation.join('\n\n')}\n</conversation>\n\n` : ''}Tool to execute: ${str(name)}\nArguments for tool execution: ${str(args)}`;

/**
 * The tool simulator's view for one recorded call not yet run: each earlier call with a result is a user turn
 * (the conversation since the previous result, then the call) answered by that result as the model's turn;
 * calls still waiting are left out; last comes the call to run.
 */
export function toolSimulatorInput(task: SimulationTask, messages: readonly TrajectoryMessage[], pending: TrajectoryMessage): PromptMessage[] {
  const system = fill(TEMPLATES.toolSimulator, {
    domain_policy: task.policy,
    customer_scenario: scenarioText(task.customer_scenario),
    tool_definitions: toolDefinitions(task.tools),
  });
  const input: PromptMessage[] = [{ role: 'system', content: system }];
  const calls = new Map(messages.filter((m) => m.type === 'tool_call' && m.tool_call_id != null).map((m) => [m.tool_call_id, m]));
  const conversation: string[] = [];
  for (const m of messages) {
    if (m.type === 'text') {
      const sender = m.source === 'user' ? 'customer' : 'representative';
      conversation.push(`<${sender}>\n${str(m.text)}\n</${sender}>`);
    } else if (m.type === 'tool_execution') {
      const call = calls.get(m.tool_call_id);
      if (!call) continue;
      input.push({ role: 'user', content: toolRequest(conversation, call.tool_name, call.arguments) });
      input.push({ role: 'assistant', content: str(m.execution_result) });
      conversation.length = 0;
    }
  }
  input.push({ role: 'user', content: toolRequest(conversation, pending.tool_name, pending.arguments) });
  return input;
}
