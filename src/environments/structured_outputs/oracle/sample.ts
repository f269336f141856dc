// A value conforming to a (strictified) JSON Schema, written with the answer format in mind: XML
// and CSV answers carry nulls as empty elements or cells, TOML cannot carry them at all.
import { samplePattern } from './pattern';

export type Format = 'json' | 'yaml' | 'xml' | 'toml' | 'csv';
type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const NO_VALUE = Symbol('no conforming value');

export function sampleSchema(schema: unknown, format: Format): unknown {
  const value = new Sampler(schema, format).sample(schema, 0);
  return value === NO_VALUE ? null : value;
}

class Sampler {
  constructor(
    private readonly root: unknown,
    private readonly format: Format,
  ) {}

  sample(schema: unknown, depth: number): unknown {
    if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return this.format === 'toml' ? 'x' : null;
    if (!isObject(schema) || depth > 32) return NO_VALUE;
    if (typeof schema.$ref === 'string') return this.sample(this.resolve(schema.$ref), depth + 1);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return this.pick(schema.enum);
    if (Array.isArray(schema.allOf)) return this.sample(Object.assign({}, ...schema.allOf.filter(isObject), { ...schema, allOf: undefined }), depth + 1);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = schema[key];
      if (Array.isArray(options)) {
        for (const option of this.preferred(
          options.map((o) => (isObject(o) ? typeOf(o) : undefined)),
          options,
        )) {
          const value = this.sample(option, depth + 1);
          if (value !== NO_VALUE) return value;
        }
        return NO_VALUE;
      }
    }
    const type = Array.isArray(schema.type) ? this.preferred(schema.type as string[], schema.type as string[])[0] : (schema.type ?? inferType(schema));
    switch (type) {
      case 'object':
        return this.object(schema, depth);
      case 'array': {
        const count = schema.maxItems === 0 ? 0 : Math.max(Number(schema.minItems ?? 0), 1);
        return Array.from({ length: count }, (_, i) => vary(this.sample(schema.items ?? {}, depth + 1), i));
      }
      case 'string':
        return this.string(schema);
      case 'integer':
      case 'number':
        return numberIn(schema, type === 'integer');
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return NO_VALUE;
    }
  }

  private object(schema: Schema, depth: number): unknown {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(properties)) {
      const value = this.sample(sub, depth + 1);
      if (value === NO_VALUE) return NO_VALUE;
      out[key] = value;
    }
    return out;
  }

  private string(schema: Schema): string {
    let text = typeof schema.pattern === 'string' ? samplePattern(schema.pattern) : 'sample text';
    const min = Number(schema.minLength ?? 0);
    const max = Number(schema.maxLength ?? Infinity);
    if ([...text].length < min) text = text.padEnd(min, 'x');
    if ([...text].length > max) text = [...text].slice(0, max).join('');
    return text;
  }

  /** The order to try types or options in: a null is cheapest in XML and CSV, impossible in TOML. */
  private preferred<T>(types: (string | undefined)[], options: T[]): T[] {
    const rank = (t: string | undefined) => {
      if (t === 'null') return this.format === 'xml' || this.format === 'csv' ? 0 : this.format === 'toml' ? 3 : 2;
      return t === 'string' ? 1 : 1.5;
    };
    return options
      .map((o, i) => ({ o, r: rank(types[i]) }))
      .sort((a, b) => a.r - b.r)
      .map((x) => x.o);
  }

  private pick(values: unknown[]): unknown {
    return (this.format === 'toml' ? values.find((v) => v !== null) : undefined) ?? values[0];
  }

  private resolve(ref: string): unknown {
    if (!ref.startsWith('#')) return {};
    return ref
      .slice(1)
      .split('/')
      .filter(Boolean)
      .reduce<unknown>((node, part) => (isObject(node) ? node[decodeURIComponent(part.replaceAll('~1', '/').replaceAll('~0', '~'))] : undefined), this.root);
  }
}

function typeOf(schema: Schema): string | undefined {
  return typeof schema.type === 'string' ? schema.type : undefined;
}

function inferType(schema: Schema): string {
  if ('properties' in schema) return 'object';
  if ('items' in schema) return 'array';
  return 'string';
}

function numberIn(schema: Schema, integer: boolean): number {
  const lo = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const hi = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : lo + 10;
  let value = Math.min(Math.max(lo, 1), hi);
  if (integer) value = Math.ceil(value);
  if (typeof schema.multipleOf === 'number') value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return value;
}

/** Array items differ from one another so `uniqueItems` holds. */
function vary(value: unknown, i: number): unknown {
  if (i === 0) return value;
  if (typeof value === 'string') return `${value} ${i}`;
  if (typeof value === 'number') return value + i;
  return value;
}
