// The structured_outputs task row: a JSON Schema (as text) the answer must satisfy, the format the
// answer is written in, and for tool-call rows which tool must carry it. The many other fields of
// v3/v4 rows only label metrics and are passed through untouched.
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { SCHEMA_TYPES } from './parse';

export const StructuredOutputsTask = TaskRow.extend({
  schema_str: z.string(),
  schema_type: z.enum(SCHEMA_TYPES).default('json'),
  response_mode: z.string().nullish(),
  tool_name: z.string().nullish(),
  tool_payload_key: z.string().nullish(),
});
export type StructuredOutputsTask = z.infer<typeof StructuredOutputsTask>;
