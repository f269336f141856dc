// Tool arguments checked the way NeMo Gym's vcqa tools check them (pydantic models with extra="forbid", in
// lax mode): the same coercions ("4" and 2.0 are ints, 1 is a bool) and the same error list sent to the model.
import { pyRepr } from '../../python/values';

export type FieldKind = 'str' | 'int' | 'bool' | 'str_list';

export interface FieldSpec {
  kind: FieldKind;
  /** Absent means required. */
  default?: unknown;
  /** Optional[...]: null is a value (and means "not given" to the tool). */
  nullable?: boolean;
  ge?: number;
  le?: number;
  description: string;
}

export type ArgsSpec = Record<string, FieldSpec>;

interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const PYDANTIC_URL = 'https://errors.pydantic.dev/2.14/v/';
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function coerceInt(value: unknown, loc: (string | number)[]): { value?: number; issue?: Issue } {
  if (typeof value === 'boolean') return { value: value ? 1 : 0 };
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return { value };
    return { issue: { type: 'int_from_float', loc, msg: 'Input should be a valid integer, got a number with a fractional part', input: value } };
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^[+-]?\d+$/.test(text)) return { value: Number(text) };
    return { issue: { type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input: value } };
  }
  return { issue: { type: 'int_type', loc, msg: 'Input should be a valid integer', input: value } };
}

function coerceBool(value: unknown, loc: (string | number)[]): { value?: boolean; issue?: Issue } {
  if (typeof value === 'boolean') return { value };
  const parsing = { type: 'bool_parsing', loc, msg: 'Input should be a valid boolean, unable to interpret input', input: value };
  if (typeof value === 'number') return value === 0 || value === 1 ? { value: value === 1 } : { issue: parsing };
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return { value: true };
    if (FALSE_WORDS.has(word)) return { value: false };
    return { issue: parsing };
  }
  return { issue: { type: 'bool_type', loc, msg: 'Input should be a valid boolean', input: value } };
}

function coerce(spec: FieldSpec, value: unknown, loc: (string | number)[]): { value?: unknown; issues: Issue[] } {
  if (value === null && spec.nullable) return { value: null, issues: [] };
  if (spec.kind === 'str') return typeof value === 'string' ? { value, issues: [] } : { issues: [{ type: 'string_type', loc, msg: 'Input should be a valid string', input: value }] };
  if (spec.kind === 'bool') {
    const { value: v, issue } = coerceBool(value, loc);
    return { value: v, issues: issue ? [issue] : [] };
  }
  if (spec.kind === 'str_list') {
    if (!Array.isArray(value)) return { issues: [{ type: 'list_type', loc, msg: 'Input should be a valid list', input: value }] };
    const issues = value.flatMap((item, i) => (typeof item === 'string' ? [] : [{ type: 'string_type', loc: [...loc, i], msg: 'Input should be a valid string', input: item }]));
    return { value, issues };
  }
  const { value: n, issue } = coerceInt(value, loc);
  if (issue) return { issues: [issue] };
  if (spec.ge !== undefined && n! < spec.ge) return { issues: [{ type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${spec.ge}`, input: value, ctx: { ge: spec.ge } }] };
  if (spec.le !== undefined && n! > spec.le) return { issues: [{ type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${spec.le}`, input: value, ctx: { le: spec.le } }] };
  return { value: n, issues: [] };
}

/** A location as Python prints the tuple: `('path',)`, `('items', 0)`, `()`. */
function locRepr(loc: (string | number)[]): string {
  if (loc.length === 1) return `(${pyRepr(loc[0])},)`;
  return `(${loc.map((p) => pyRepr(p)).join(', ')})`;
}

/** `e.errors()` as Python prints the list. */
function issuesRepr(issues: Issue[]): string {
  const one = (i: Issue) => {
    const parts = [`'type': ${pyRepr(i.type)}`, `'loc': ${locRepr(i.loc)}`, `'msg': ${pyRepr(i.msg)}`, `'input': ${pyRepr(i.input)}`];
    if (i.ctx) parts.push(`'ctx': ${pyRepr(i.ctx)}`);
    parts.push(`'url': ${pyRepr(PYDANTIC_URL + i.type)}`);
    return `{${parts.join(', ')}}`;
  };
  return `[${issues.map(one).join(', ')}]`;
}

/** The arguments with defaults filled, or NeMo Gym's error text for the model. */
export function parseArgs(spec: ArgsSpec, modelName: string, raw: unknown): { args: Record<string, any> } | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const issue: Issue = { type: 'model_type', loc: [], msg: `Input should be a valid dictionary or instance of ${modelName}`, input: raw, ctx: { class_name: modelName } };
    return { error: issuesRepr([issue]) };
  }
  const given = raw as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [name, field] of Object.entries(spec)) {
    if (!Object.hasOwn(given, name)) {
      if ('default' in field) args[name] = field.default;
      else issues.push({ type: 'missing', loc: [name], msg: 'Field required', input: given });
      continue;
    }
    const { value, issues: found } = coerce(field, given[name], [name]);
    issues.push(...found);
    args[name] = value;
  }
  for (const name of Object.keys(given)) if (!Object.hasOwn(spec, name)) issues.push({ type: 'extra_forbidden', loc: [name], msg: 'Extra inputs are not permitted', input: given[name] });
  return issues.length ? { error: issuesRepr(issues) } : { args };
}

/** The JSON Schema pydantic's model_json_schema() gives for the model (title dropped, as NeMo Gym does). */
export function argsJsonSchema(spec: ArgsSpec): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(spec)) {
    const type = field.kind === 'str' ? { type: 'string' } : field.kind === 'int' ? { type: 'integer' } : field.kind === 'bool' ? { type: 'boolean' } : { items: { type: 'string' }, type: 'array' };
    const base = field.nullable ? { anyOf: [type, { type: 'null' }] } : type;
    const bounds = { ...(field.le !== undefined ? { maximum: field.le } : {}), ...(field.ge !== undefined ? { minimum: field.ge } : {}) };
    properties[name] = { ...base, ...('default' in field ? { default: field.default } : {}), description: field.description, ...bounds, title: titleOf(name) };
    if (!('default' in field)) required.push(name);
  }
  return { additionalProperties: false, properties, ...(required.length ? { required } : {}), type: 'object' };
}

function titleOf(name: string): string {
  return name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
