// structured_outputs against NeMo Gym: the recorded v1 JSON rollouts, text-mode edge cases for every
// format and tool-call cases with the verdicts NeMo Gym's app.py gives (computed by running it), and
// the oracle on the v1, v3 (text) and v4 (tool call) example rows.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { structuredOutputs } from '../../src/environments/structured_outputs';
import type { StructuredOutputsTask } from '../../src/environments/structured_outputs/task';
import { structuredOutputsOracle } from '../../src/environments/structured_outputs/oracle';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { verifyInChild } from './env_helpers';
import { answerResponse, FIXTURES, readJsonl } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'structured_outputs');
const load = (file: string) => readJsonl(path.join(DIR, file)).map((row) => structuredOutputs.taskSchema.parse(row));
const v1Tasks = load('example_v1_json_from_git_45f090fb3.jsonl');
const v3Tasks = load('structured_outputs_v3_example.jsonl');
const v4Tasks = load('example.jsonl');

type Result = { reward: number; error_type: string | null; failure_reason?: string };
const verify = (task: StructuredOutputsTask, response: ResponseObject) => structuredOutputs.verify(task, response, { state: null }) as Result;

/** Recorded inputs add `type: "message"` to each item, so rollouts join to rows by role and content. */
const messagesKey = (input: unknown) => JSON.stringify((input as { role: string; content: unknown }[]).map((m) => [m.role, m.content]));

describe('structured_outputs conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl<{ responses_create_params: { input: unknown }; response: ResponseObject; reward: number }>(path.join(DIR, 'example_rollouts.jsonl'));
  it.each(rollouts.map((r, i) => [i, r] as const))('rollout %i reproduces the recorded reward', (_i, rollout) => {
    const task = v1Tasks.find((t) => messagesKey(t.responses_create_params.input) === messagesKey(rollout.responses_create_params.input));
    expect(task).toBeDefined();
    const result = verify(task!, rollout.response);
    expect(result.reward).toBe(rollout.reward);
    // The four failures are markdown-fenced JSON.
    expect(result.error_type).toBe(rollout.reward === 1 ? null : 'parse_error');
  });
});

interface TextCase {
  name: string;
  type: StructuredOutputsTask['schema_type'];
  schema: string;
  text: string;
  reward: number;
  error: string | null;
}

// Verdicts of NeMo Gym's evaluate_structured_output_response (07d6b0d) on the same inputs.
const TEXT_CASES: TextCase[] = [
  { name: 'empty answer', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '', reward: 0.0, error: 'empty_response' },
  { name: 'whitespace-only answer', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '  \n\t', reward: 0.0, error: 'empty_response' },
  { name: 'json in a markdown fence', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '```json\n{"a": 1}\n```', reward: 0.0, error: 'parse_error' },
  { name: 'json conforming', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}', text: '{"a": 1, "b": "x"}', reward: 1.0, error: null },
  {
    name: 'json missing property (strict schema requires all)',
    type: 'json',
    schema: '{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}',
    text: '{"a": 1}',
    reward: 0.0,
    error: 'validation_error',
  },
  { name: 'json extra property', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '{"a": 1, "z": 2}', reward: 0.0, error: 'validation_error' },
  { name: 'json NaN literal is a number', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "number"}}}', text: '{"a": NaN}', reward: 1.0, error: null },
  { name: 'json 1.0 is an integer', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '{"a": 1.0}', reward: 1.0, error: null },
  { name: 'json boolean is not an integer', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '{"a": true}', reward: 0.0, error: 'validation_error' },
  { name: 'json trailing comma', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '{"a": 1,}', reward: 0.0, error: 'parse_error' },
  { name: 'json two answers', type: 'json', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '{"a": 1}\n{"a": 2}', reward: 0.0, error: 'parse_error' },
  {
    name: 'json formats are not asserted',
    type: 'json',
    schema: '{"type": "object", "properties": {"e": {"type": "string", "format": "email"}, "d": {"type": "string", "format": "date"}}}',
    text: '{"e": "not an email", "d": "someday"}',
    reward: 1.0,
    error: null,
  },
  { name: 'json pattern with unicode word characters', type: 'json', schema: '{"type": "string", "pattern": "^\\\\w+$"}', text: '"héllo"', reward: 1.0, error: null },
  { name: 'json pattern mismatch', type: 'json', schema: '{"type": "string", "pattern": "^[0-9]{4}$"}', text: '"19840"', reward: 0.0, error: 'validation_error' },
  { name: 'schema_str is not JSON', type: 'json', schema: '{not json', text: '{}', reward: 0.0, error: 'schema_error' },
  { name: 'schema is not a valid schema', type: 'json', schema: '{"type": "strng"}', text: '"x"', reward: 0.0, error: 'validation_error' },
  {
    name: 'property literally named properties',
    type: 'json',
    schema: '{"type": "object", "properties": {"properties": {"type": "string"}}}',
    text: '{"properties": "x"}',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'OpenAPI 3.0 nullable does not allow null',
    type: 'json',
    schema: '{"type": "object", "properties": {"a": {"type": "string", "nullable": true}}}',
    text: '{"a": null}',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'a $schema keyword is ignored',
    type: 'json',
    schema: '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "integer"}}}',
    text: '{"a": 1}',
    reward: 1.0,
    error: null,
  },
  {
    name: 'objects inside anyOf are not made strict',
    type: 'json',
    schema: '{"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}]}',
    text: '{"a": 1, "extra": 2}',
    reward: 1.0,
    error: null,
  },
  { name: 'unicode keys and values', type: 'json', schema: '{"type": "object", "properties": {"名前": {"type": "string"}}}', text: '{"名前": "東京 🗼"}', reward: 1.0, error: null },
  {
    name: 'json $ref to definitions',
    type: 'json',
    schema: '{"type": "object", "definitions": {"p": {"type": "object", "properties": {"n": {"type": "integer"}}}}, "properties": {"p": {"$ref": "#/definitions/p"}}}',
    text: '{"p": {"n": 3}}',
    reward: 1.0,
    error: null,
  },
  {
    name: 'yaml unquoted date is not a string',
    type: 'yaml',
    schema: '{"type": "object", "properties": {"born": {"type": "string"}}}',
    text: 'born: 1990-05-12\n',
    reward: 0.0,
    error: 'validation_error',
  },
  { name: 'yaml quoted date is a string', type: 'yaml', schema: '{"type": "object", "properties": {"born": {"type": "string"}}}', text: "born: '1990-05-12'\n", reward: 1.0, error: null },
  { name: 'yaml yes is a boolean', type: 'yaml', schema: '{"type": "object", "properties": {"ok": {"type": "boolean"}}}', text: 'ok: yes', reward: 1.0, error: null },
  { name: 'yaml y is a string', type: 'yaml', schema: '{"type": "object", "properties": {"ok": {"type": "boolean"}}}', text: 'ok: y', reward: 0.0, error: 'validation_error' },
  { name: 'yaml 1e3 is a string', type: 'yaml', schema: '{"type": "object", "properties": {"n": {"type": "number"}}}', text: 'n: 1e3', reward: 0.0, error: 'validation_error' },
  { name: 'yaml two documents', type: 'yaml', schema: '{"type": "object", "properties": {"n": {"type": "integer"}}}', text: 'n: 1\n---\nn: 2\n', reward: 0.0, error: 'parse_error' },
  { name: 'yaml in a markdown fence', type: 'yaml', schema: '{"type": "object", "properties": {"n": {"type": "integer"}}}', text: '```yaml\nn: 1\n```', reward: 0.0, error: 'parse_error' },
  { name: 'yaml given as JSON', type: 'yaml', schema: '{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}', text: '{"n": 1, "s": "x"}', reward: 1.0, error: null },
  {
    name: 'yaml tab indentation',
    type: 'yaml',
    schema: '{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}}}}}',
    text: 'a:\n\tb: 1',
    reward: 0.0,
    error: 'parse_error',
  },
  { name: 'yaml plain scalar answer', type: 'yaml', schema: '{"type": "object", "properties": {"n": {"type": "integer"}}}', text: 'just some prose', reward: 0.0, error: 'validation_error' },
  {
    name: 'xml with coerced types',
    type: 'xml',
    schema:
      '{"type": "object", "properties": {"person": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "admin": {"type": "boolean"}, "score": {"type": "number"}}}}}',
    text: '<person><name>Ann</name><age> 31 </age><admin>1</admin><score>2.5</score></person>',
    reward: 1.0,
    error: null,
  },
  {
    name: 'xml integer that is not a number',
    type: 'xml',
    schema: '{"type": "object", "properties": {"person": {"type": "object", "properties": {"age": {"type": "integer"}}}}}',
    text: '<person><age>thirty</age></person>',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'xml array wrapper unwrapped',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}}',
    text: '<r><tags><tag>a</tag><tag>b</tag></tags></r>',
    reward: 1.0,
    error: null,
  },
  {
    name: 'xml single-item array',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "integer"}}}}}}',
    text: '<r><tags><tag>7</tag></tags></r>',
    reward: 1.0,
    error: null,
  },
  {
    name: 'xml empty array',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}}',
    text: '<r><tags/></r>',
    reward: 1.0,
    error: null,
  },
  {
    name: 'xml empty element as a string',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"s": {"type": "string"}}}}}',
    text: '<r><s></s></r>',
    reward: 1.0,
    error: null,
  },
  {
    name: 'xml empty element as an integer',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"n": {"type": "integer"}}}}}',
    text: '<r><n/></r>',
    reward: 0.0,
    error: 'validation_error',
  },
  { name: 'xml two root elements', type: 'xml', schema: '{"type": "object", "properties": {"r": {"type": "string"}}}', text: '<r>a</r><r>b</r>', reward: 0.0, error: 'parse_error' },
  {
    name: 'xml union type is not coerced',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}}}',
    text: '<r><n>5</n></r>',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'xml attribute is an extra property',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "object", "properties": {"name": {"type": "string"}}}}}',
    text: '<r id="1"><name>x</name></r>',
    reward: 0.0,
    error: 'validation_error',
  },
  { name: 'xml undefined entity', type: 'xml', schema: '{"type": "object", "properties": {"r": {"type": "string"}}}', text: '<r>caf&eacute;</r>', reward: 0.0, error: 'parse_error' },
  {
    name: 'xml with declaration and unicode',
    type: 'xml',
    schema: '{"type": "object", "properties": {"r": {"type": "string"}}}',
    text: '<?xml version="1.0" encoding="UTF-8"?>\n<r>café &amp; thé</r>',
    reward: 1.0,
    error: null,
  },
  { name: 'toml date is not a string', type: 'toml', schema: '{"type": "object", "properties": {"born": {"type": "string"}}}', text: 'born = 1990-05-12', reward: 0.0, error: 'validation_error' },
  {
    name: 'toml conforming',
    type: 'toml',
    schema:
      '{"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}, "owner": {"type": "object", "properties": {"age": {"type": "integer"}}}}}',
    text: 'name = "x"\ntags = ["a", "b"]\n\n[owner]\nage = 3\n',
    reward: 1.0,
    error: null,
  },
  { name: 'toml duplicate key', type: 'toml', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: 'a = 1\na = 2', reward: 0.0, error: 'parse_error' },
  { name: 'toml in a markdown fence', type: 'toml', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}', text: '```toml\na = 1\n```', reward: 0.0, error: 'parse_error' },
  {
    name: 'csv with coerced columns',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "score": {"type": ["number", "null"]}}}}',
    text: 'name,age,score\nAnn,31,2.5\nBob,40,\n',
    reward: 1.0,
    error: null,
  },
  {
    name: 'csv short row',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}}}',
    text: 'name,city\nAnn\n',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'csv extra cells',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}',
    text: 'name\nAnn,extra\n',
    reward: 0.0,
    error: 'validation_error',
  },
  {
    name: 'csv quoted comma and newline',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "note": {"type": "string"}}}}',
    text: 'name,note\r\n"Smith, Ann","line one\nline ""two"""\r\n',
    reward: 1.0,
    error: null,
  },
  {
    name: 'csv bare carriage return',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}',
    text: 'a\rb\n',
    reward: 0.0,
    error: 'parse_error',
  },
  { name: 'csv header only', type: 'csv', schema: '{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}', text: 'a\n', reward: 1.0, error: null },
  {
    name: 'csv blank lines are skipped',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}}',
    text: 'a\n\n1\n\n2\n',
    reward: 1.0,
    error: null,
  },
  { name: 'csv against an object schema', type: 'csv', schema: '{"type": "object", "properties": {"a": {"type": "string"}}}', text: 'a\nx\n', reward: 0.0, error: 'validation_error' },
  { name: 'csv boolean column', type: 'csv', schema: '{"type": "array", "items": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}', text: 'ok\nTRUE\n0\n', reward: 1.0, error: null },
  {
    name: 'csv stray quote inside a field',
    type: 'csv',
    schema: '{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}',
    text: 'a,b\nx"y,"q"z\n',
    reward: 1.0,
    error: null,
  },
];

describe('structured_outputs text mode', () => {
  it.each(TEXT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const task = structuredOutputs.taskSchema.parse({ responses_create_params: { input: 'q' }, schema_str: c.schema, schema_type: c.type });
    const result = verify(task, answerResponse(c.text));
    expect(result.reward).toBe(c.reward);
    expect(result.error_type).toBe(c.error);
    if (c.error) expect(result.failure_reason).toMatch(new RegExp(`^${c.error}: `));
  });

  it('joins the text of every assistant message', () => {
    const task = structuredOutputs.taskSchema.parse({ responses_create_params: { input: 'q' }, schema_str: '{"type":"object","properties":{"a":{"type":"integer"}}}' });
    const response = answerResponse('{"a":');
    response.output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ' 1}' }] });
    expect(verify(task, response).reward).toBe(1);
  });
});

interface ToolCase {
  name: string;
  calls: [string, string][];
  reward: number;
  error: string | null;
  tool_name?: string | null;
  payload_key?: string | null;
  apiError?: unknown;
}

// Verdicts of NeMo Gym's extract_tool_call_payload + evaluate_structured_object_response (07d6b0d).
const TOOL_CASES: ToolCase[] = [
  { name: 'no tool call', calls: [], reward: 0.0, error: 'missing_tool_call' },
  {
    name: 'two tool calls',
    calls: [
      ['extract', '{"result": {"a": 1}}'],
      ['extract', '{"result": {"a": 1}}'],
    ],
    reward: 0.0,
    error: 'multiple_tool_calls',
  },
  { name: 'wrong tool name', calls: [['other_tool', '{"result": {"a": 1}}']], reward: 0.0, error: 'wrong_tool_name' },
  { name: 'arguments are not JSON', calls: [['extract', '{"result": {"a": 1}']], reward: 0.0, error: 'tool_arguments_parse_error' },
  { name: 'payload key missing', calls: [['extract', '{"a": 1}']], reward: 0.0, error: 'missing_tool_payload_key' },
  { name: 'payload conforming', calls: [['extract', '{"result": {"a": 1}}']], reward: 1.0, error: null },
  { name: 'payload violating the schema', calls: [['extract', '{"result": {"a": "one"}}']], reward: 0.0, error: 'validation_error' },
  { name: 'arguments are a JSON list', calls: [['extract', '[1]']], reward: 0.0, error: 'missing_tool_payload_key' },
  { name: 'API error recorded on the response', calls: [['extract', '{"result": {"a": 1}}']], reward: 0.0, error: 'api_error', apiError: { code: 'server_error', message: 'boom' } },
  { name: 'no tool_name: any single call', calls: [['whatever', '{"result": {"a": 1}}']], reward: 1.0, error: null, tool_name: null },
  { name: 'no payload key: the whole arguments', calls: [['extract', '{"a": 1}']], reward: 1.0, error: null, payload_key: null },
];

describe('structured_outputs tool-call mode', () => {
  it.each(TOOL_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const task = structuredOutputs.taskSchema.parse({
      responses_create_params: { input: 'q' },
      schema_str: '{"type":"object","properties":{"a":{"type":"integer"}}}',
      response_mode: 'tool_call',
      tool_name: c.tool_name === undefined ? 'extract' : c.tool_name,
      tool_payload_key: c.payload_key === undefined ? 'result' : c.payload_key,
    });
    const output: ConversationItem[] = c.calls.map(([name, args], i) => ({ type: 'function_call', call_id: `c${i}`, name, arguments: args }));
    const result = verify(task, { id: 'r', output, ...(c.apiError ? { error: c.apiError } : {}) });
    expect(result.reward).toBe(c.reward);
    expect(result.error_type).toBe(c.error);
  });
});

describe('structured_outputs oracle', () => {
  // The v3 CSV rows give an object schema for what csv.DictReader always returns as a list, so no
  // answer can pass them (NeMo Gym scores every CSV answer to them 0 as well).
  const satisfiable = (t: StructuredOutputsTask) => t.schema_type !== 'csv';
  const rows = [...v1Tasks, ...v3Tasks, ...v4Tasks];
  it.each(rows.map((t, i) => [i, t.schema_type, t.response_mode ?? 'text', t] as const))('row %i (%s, %s)', (_i, _type, _mode, task) => {
    const play = (correct: boolean) => verify(task, { id: 'oracle', output: structuredOutputsOracle(task, [], { correct, rng: seededRng(5) }) });
    if (satisfiable(task)) expect(play(true).reward).toBe(1);
    expect(play(false).reward).toBe(0);
  });
});

describe('structured_outputs schema patterns from a row', () => {
  const row = (pattern: string) => ({
    responses_create_params: { input: 'p' },
    schema_str: JSON.stringify({ type: 'object', properties: { note: { type: 'string', pattern } } }),
  });

  it('a catastrophically backtracking pattern fails verify with REGEX_TIMEOUT, not a validation_error', async () => {
    const note = 'a long note with many plain words and no bang at all '.repeat(40);
    const [frozen, next] = await verifyInChild([
      { env: 'structured_outputs', task: row('^(?:[a-z]+\\s*)+!'), text: JSON.stringify({ note }) },
      { env: 'structured_outputs', task: row('^[a-z ]+$'), text: JSON.stringify({ note }) },
    ]);
    expect(frozen!.error?.code).toBe('REGEX_TIMEOUT');
    expect(next).toMatchObject({ reward: 1 });
    expect(next!.ticks).toBeGreaterThan(frozen!.ticks);
  });
});
