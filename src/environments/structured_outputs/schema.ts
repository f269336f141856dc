// The schema side of grading: NeMo Gym "strictifies" the row's schema (every object with
// `properties` requires them all and allows nothing else) and validates with
// openapi-schema-validator's OAS 3.1 validator, i.e. JSON Schema 2020-12 without format assertions.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { PyRegex } from '../../python/regex';
import { FOREIGN, type Parsed } from './foreign';

/**
 * strictify_schema: recurses through nested objects only (not into lists such as anyOf), and also
 * rewrites a property literally named "properties", exactly as the Python does.
 */
export function strictify(schema: unknown): void {
  if (!isPlainObject(schema)) return;
  if ('properties' in schema) {
    schema.required = pythonList(schema.properties);
    schema.additionalProperties = false;
  }
  for (const value of Object.values(schema)) strictify(value);
}

/** Python's list(x) for what JSON can hold: keys of a dict, items of a list, characters of a string. */
function pythonList(value: unknown): unknown[] {
  if (isPlainObject(value)) return Object.keys(value);
  if (Array.isArray(value)) return [...value];
  if (typeof value === 'string') return [...value];
  throw new TypeError(`'${value === null ? 'NoneType' : typeof value}' object is not iterable`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `pattern` is matched with Python's re.search, as jsonschema does, under the regex deadline (rows supply schemas). */
function pythonSearch(pattern: string) {
  const re = new PyRegex(pattern, '', { guarded: true });
  return {
    test: (text: string): boolean => re.search(text) !== null,
    // Ajv caches compiled patterns under this string.
    toString: () => re.toString(),
  };
}
pythonSearch.code = 'pythonSearch';

const CACHE_LIMIT = 256;
const compiled = new Map<string, ValidateFunction | Error>();

/** A validator per schema text; a fresh Ajv each, so schemas reusing one `$id` do not collide. */
function validatorFor(schema: unknown): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (!entry) {
    try {
      const ajv = new Ajv2020({ strict: false, validateFormats: false, code: { regExp: pythonSearch } });
      entry = ajv.compile(forAjv(schema, true) as object);
    } catch (error) {
      entry = new Error(`SchemaError: ${(error as Error).message}`);
    }
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, entry);
  }
  return entry;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'];

/**
 * A copy Ajv reads as the OAS 3.1 validator does: without the root `$schema` (Ajv would load the
 * named meta-schema) and with OpenAPI 3.0's `nullable` made inert (Ajv honours it; OAS 3.1 does not).
 */
function forAjv(schema: unknown, root = false): unknown {
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (root && key === '$schema') continue;
    const name = key === 'nullable' ? 'x-oas30-nullable' : key;
    if (SCHEMA_MAPS.includes(key) && isPlainObject(value)) out[name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forAjv(v)]));
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[name] = value.map((v) => forAjv(v));
    else if (SUBSCHEMAS.includes(key)) out[name] = forAjv(value);
    else out[name] = value;
  }
  return out;
}

/** The first problem found, or null when `value` conforms. */
export function schemaViolation(value: Parsed, schema: unknown): string | null {
  const validate = validatorFor(schema);
  if (validate instanceof Error) return validate.message;
  if (validate(value)) return null;
  const error = validate.errors?.[0];
  const where = error?.instancePath || '(root)';
  return `ValidationError: ${where} ${error?.message ?? 'is invalid'}${containsForeign(value) ? ' (a value is not JSON data, e.g. a date)' : ''}`;
}

function containsForeign(value: Parsed): boolean {
  if (value === FOREIGN) return true;
  if (Array.isArray(value)) return value.some(containsForeign);
  return isPlainObject(value) && Object.values(value).some((v) => containsForeign(v as Parsed));
}
