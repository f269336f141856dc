// NeMo Gym's structured_outputs environment: the answer must parse as the row's format (JSON, YAML,
// XML, TOML or CSV) and conform to the row's JSON Schema, made strict. In tool-call mode the answer
// is the arguments of one call to the named tool. Reward is 1 or 0; `error_type` says which step failed.
import { defineEnvironment } from '../define';
import { gradeResponse } from './grade';
import { StructuredOutputsTask } from './task';

export const structuredOutputs = defineEnvironment({
  name: 'structured_outputs',
  description: 'Answer in JSON, YAML, XML, TOML or CSV (or as one tool call) conforming to a strict JSON Schema; reward 1 or 0.',
  taskSchema: StructuredOutputsTask,
  // One model call: in tool-call mode the call's arguments are the structured output, never executed.
  agent: 'non_executing_agent',
  verify: (task, response) => gradeResponse(task, response),
});
