// NeMo Gym turns the all-string values of parsed XML and CSV into the types the schema asks for
// before validating, leaving a value unchanged where Python's int()/float() would raise.
import { pyFloat, pyIntFromString } from '../../python/number';
import type { Parsed } from './foreign';
import type { XmlValue } from './xml';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function pyBool(s: string): boolean | undefined {
  const lower = s.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return undefined;
}

/** One string to a scalar JSON Schema type, or unchanged. */
function coerceString(value: string, type: unknown): Parsed {
  if (type === 'integer') {
    const int = pyIntFromString(value);
    return int === null ? value : Number(int);
  }
  if (type === 'number') return pyFloat(value) ?? value;
  if (type === 'boolean') return pyBool(value) ?? value;
  return value;
}

/** coerce_xml_types: follows the schema's single `type`; an array position unwraps xmltodict's one-key wrapper. */
export function coerceXml(data: XmlValue, schema: unknown): Parsed {
  if (!isObject(schema) || !('type' in schema)) return data as Parsed;
  const type = schema.type;
  if (type === 'object' && isObject(data)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, k in properties ? coerceXml(v as XmlValue, properties[k]) : (v as Parsed)]));
  }
  if (type === 'array') {
    let items: XmlValue = data;
    if (isObject(items) && Object.keys(items).length === 1) items = Object.values(items)[0] as XmlValue;
    const list = Array.isArray(items) ? items : items === null ? [] : [items];
    return list.map((item) => coerceXml(item, schema.items ?? {}));
  }
  if (data === null && type === 'string') return '';
  return typeof data === 'string' ? coerceString(data, type) : (data as Parsed);
}

/** coerce_csv_types: each cell by its column's type in the row schema (`items`, or the schema itself). */
export function coerceCsv(rows: readonly Record<string, unknown>[], schema: unknown): Parsed {
  // Python calls .get on each of these; a non-object raises, which NeMo Gym reports as a validation error.
  if (!isObject(schema)) throw new TypeError('schema is not an object');
  const itemSchema = 'items' in schema ? schema.items : schema;
  if (!isObject(itemSchema)) throw new TypeError('items schema is not an object');
  const properties = itemSchema.properties ?? {};
  if (!isObject(properties)) throw new TypeError('properties is not an object');
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        const prop = key in properties ? properties[key] : {};
        if (!isObject(prop)) throw new TypeError(`schema of column ${key} is not an object`);
        const type = 'type' in prop ? prop.type : 'string';
        return [key, coerceCell(value as string | null | string[], type)];
      }),
    ),
  );
}

function coerceCell(value: string | null | string[], type: unknown): Parsed {
  if (Array.isArray(type)) {
    if ((value === null || value === '') && type.includes('null')) return null;
    for (const t of type) {
      if (t === 'null') continue;
      const result = coerceCell(value, t);
      if (typeof result !== 'string' || t === 'string') return result;
    }
    return value;
  }
  if (value === null || value === '' || Array.isArray(value)) return value;
  return coerceString(value, type);
}
