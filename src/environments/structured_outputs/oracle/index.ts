// The mock policy's player for structured_outputs: a conforming value sampled from the row's
// schema and written in the row's format (or passed as the one tool call), checked with the
// environment's own grading; a wrong answer is a fenced or empty one that fails it.
import { assistantMessage } from '../../example_single_tool_call';
import type { ConversationItem, ResponseObject } from '../../../schemas/responses';
import type { Oracle, OracleOptions } from '../../oracle';
import { gradeResponse } from '../grade';
import { jsonLoadsPlain } from '../../../python/json';
import { sampleSchema } from './sample';
import { serialize } from './serialize';
import { strictify } from '../schema';
import type { StructuredOutputsTask } from '../task';

export const structuredOutputsOracle: Oracle<StructuredOutputsTask> = (task, _history, options) => oracleItems(task, options);

function oracleItems(task: StructuredOutputsTask, { correct, rng }: OracleOptions): ConversationItem[] {
  const candidates = correct ? correctCandidates(task, `call_${rng.int(1e9)}`) : wrongCandidates(task, `call_${rng.int(1e9)}`);
  const wanted = correct ? 1 : 0;
  return candidates.find((items) => gradeResponse(task, asResponse(items)).reward === wanted) ?? candidates[0]!;
}

function asResponse(output: ConversationItem[]): ResponseObject {
  return { id: 'oracle', output };
}

function conformingValue(task: StructuredOutputsTask): unknown {
  const schema = jsonLoadsPlain(task.schema_str);
  strictify(schema);
  return sampleSchema(schema, task.response_mode === 'tool_call' ? 'json' : task.schema_type);
}

function toolCall(task: StructuredOutputsTask, callId: string, args: unknown, name = toolName(task)): ConversationItem {
  return { type: 'function_call', call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' };
}

function toolName(task: StructuredOutputsTask): string {
  return task.tool_name ?? task.responses_create_params.tools?.[0]?.name ?? 'response_tool';
}

function correctCandidates(task: StructuredOutputsTask, callId: string): ConversationItem[][] {
  const value = conformingValue(task);
  if (task.response_mode === 'tool_call') {
    const args = task.tool_payload_key ? { [task.tool_payload_key]: value } : value;
    return [[toolCall(task, callId, args)]];
  }
  const texts = [() => serialize(value, task.schema_type), () => JSON.stringify(value)];
  return texts.flatMap((write) => {
    try {
      return [[assistantMessage(write())]];
    } catch {
      return [];
    }
  });
}

function wrongCandidates(task: StructuredOutputsTask, callId: string): ConversationItem[][] {
  if (task.response_mode === 'tool_call') {
    return [[toolCall(task, callId, {}, `${toolName(task)}_unknown`)], [assistantMessage('I will not call a tool.')]];
  }
  const fenced = `\`\`\`${task.schema_type}\n${JSON.stringify(conformingValue(task))}\n\`\`\``;
  return [[assistantMessage(fenced)], [assistantMessage('')]];
}
