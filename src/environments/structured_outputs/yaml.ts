// Python's yaml.safe_load (PyYAML: YAML 1.1) on the `yaml` package. PyYAML resolves plain scalars
// with its own patterns (yes/on are booleans, "y" is not; a float needs a dot and a signed exponent;
// 017 is octal; 1:30 is 90; dates become date objects), so those resolvers replace yaml's defaults.
import { parseAllDocuments, type ScalarTag } from 'yaml';
import { FOREIGN, type Parsed } from './foreign';

const scalar = (tag: string, test: RegExp, resolve: (s: string) => unknown): ScalarTag => ({
  tag: `tag:yaml.org,2002:${tag}`,
  default: true,
  test,
  resolve: resolve as ScalarTag['resolve'],
});

/** Prefix of a key Python would hold as a non-string (int, bool, None…): never a schema property name. */
const FOREIGN_KEY = '\u0000';

const sexagesimal = (s: string) => s.split(':').reduce((acc, part) => acc * 60 + Number(part), 0);

function pyYamlInt(raw: string): number {
  let s = raw.replaceAll('_', '');
  const sign = s.startsWith('-') ? -1 : 1;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  if (s === '0') return 0;
  if (s.startsWith('0b')) return sign * parseInt(s.slice(2), 2);
  if (s.startsWith('0x')) return sign * parseInt(s.slice(2), 16);
  if (s.startsWith('0')) return sign * parseInt(s, 8);
  if (s.includes(':')) return sign * sexagesimal(s);
  return sign * Number(s);
}

function pyYamlFloat(raw: string): number {
  let s = raw.replaceAll('_', '').toLowerCase();
  const sign = s.startsWith('-') ? -1 : 1;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  if (s === '.inf') return sign * Infinity;
  if (s === '.nan') return Number.NaN;
  if (s.includes(':')) return sign * sexagesimal(s);
  return sign * Number(s);
}

const PYYAML_SCALARS: ScalarTag[] = [
  scalar('null', /^(?:~|null|Null|NULL|)$/, () => null),
  scalar('bool', /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/, (s) => /^(?:yes|true|on)$/i.test(s)),
  scalar('int', /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/, pyYamlInt),
  scalar(
    'float',
    /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
    pyYamlFloat,
  ),
  scalar(
    'timestamp',
    /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/,
    () => FOREIGN,
  ),
  // PyYAML resolves a lone "=" to a tag safe_load has no constructor for.
  scalar('value', /^=$/, () => {
    throw new Error("could not determine a constructor for the tag 'tag:yaml.org,2002:value'");
  }),
];

const REPLACED = new Set(PYYAML_SCALARS.map((t) => t.tag));

export function parsePyYaml(text: string): Parsed {
  const docs = parseAllDocuments(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: false,
    customTags: (tags) => [...PYYAML_SCALARS, ...tags.filter((t) => typeof t === 'string' || !REPLACED.has(t.tag))],
  });
  if (!Array.isArray(docs)) return null;
  if (docs.length > 1) throw new Error('expected a single document in the stream');
  const doc = docs[0];
  if (!doc) return null;
  if (doc.errors.length > 0) throw doc.errors[0]!;
  // yaml only warns about a tag it has no constructor for; PyYAML's safe_load raises.
  const unknownTag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (unknownTag) throw unknownTag;
  return toParsed(doc.toJS({ mapAsMap: true }));
}

/** Maps and sequences as JSON-like data; keys that are not strings, and dates, bytes and sets, as Python keeps them: non-JSON. */
function toParsed(value: unknown): Parsed {
  if (value instanceof Map) {
    const out: Record<string, Parsed> = {};
    for (const [k, v] of value) out[typeof k === 'string' ? k : `${FOREIGN_KEY}${String(k)}`] = toParsed(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(toParsed);
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return FOREIGN;
}
