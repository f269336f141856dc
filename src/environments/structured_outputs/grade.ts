// Grading one structured-output answer as NeMo Gym does, step by step: empty answer, schema text,
// parsing, coercion and validation (text mode), or the tool call's payload (tool-call mode).
import { isGymError } from '../../errors';
import { outputText, type ResponseObject } from '../../schemas/responses';
import type { VerifyResult } from '../../schemas/verify';
import { jsonLoadsPlain } from '../../python/json';
import { pyStrip } from '../../python/str';
import { coerceAnswer, parseAnswer, type SchemaType } from './parse';
import type { Parsed } from './foreign';
import { schemaViolation, strictify } from './schema';
import { StructuredOutputsTask } from './task';
import { toolCallPayload } from './tool_call';

type Outcome = VerifyResult & { error_type: string | null; error_message: string | null };

const pass = (): Outcome => ({ reward: 1, error_type: null, error_message: null });
const fail = (errorType: string, message: string): Outcome => ({
  reward: 0,
  error_type: errorType,
  error_message: message,
  failure_reason: `${errorType}: ${message}`,
});

/** The row's schema, strictified; a schema_error outcome if schema_str is not JSON. */
function strictSchema(schemaStr: string): { schema: unknown } | Outcome {
  let schema: unknown;
  try {
    schema = jsonLoadsPlain(schemaStr);
  } catch (e) {
    return fail('schema_error', (e as Error).message.slice(0, 200));
  }
  strictify(schema);
  return { schema };
}

function validate(value: () => Parsed, schema: unknown): Outcome {
  try {
    const violation = schemaViolation(value(), schema);
    return violation === null ? pass() : fail('validation_error', violation.slice(0, 200));
  } catch (e) {
    // Gymflow refusing to grade (a schema pattern past the regex deadline) is not the answer's fault.
    if (isGymError(e)) throw e;
    return fail('validation_error', `${(e as Error).name}: ${(e as Error).message.slice(0, 200)}`);
  }
}

export function gradeText(type: SchemaType, schemaStr: string, text: string): Outcome {
  if (pyStrip(text) === '') return fail('empty_response', 'No assistant response text');
  const strict = strictSchema(schemaStr);
  if ('reward' in strict) return strict;
  let parsed: unknown;
  try {
    parsed = parseAnswer(type, text);
  } catch (e) {
    return fail('parse_error', `${(e as Error).name}: ${(e as Error).message.slice(0, 200)}`);
  }
  return validate(() => coerceAnswer(type, parsed, strict.schema), strict.schema);
}

export function gradeResponse(task: StructuredOutputsTask, response: ResponseObject): Outcome {
  if (task.response_mode !== 'tool_call') return gradeText(task.schema_type, task.schema_str, outputText(response.output));
  const payload = toolCallPayload(task, response);
  if (!payload.ok) return fail(payload.errorType, payload.message);
  const strict = strictSchema(task.schema_str);
  if ('reward' in strict) return strict;
  return validate(() => payload.value as Parsed, strict.schema);
}
