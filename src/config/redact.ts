// Secret-looking values blanked before a configuration is shown: values under keys that name a key, token
// or password, and any text holding the value of an environment variable whose name says it is a secret.
import { isMap, type ConfigValue } from './tree';

const SECRET_NAME = /(api[_-]?key|token|secret|password|passwd|credential|authorization)/i;
/** Keys that hold where a secret is (a variable's or a file's name), not the secret itself. */
const POINTER_NAME = /_(env|var|file|path)$/i;
export const REDACTED = '***';

export function redact(value: ConfigValue, env: Readonly<Record<string, string | undefined>> = {}): ConfigValue {
  const secrets = Object.entries(env)
    .filter(([name, v]) => SECRET_NAME.test(name) && v !== undefined && v.length >= 6)
    .map(([, v]) => v!);
  const walk = (v: ConfigValue, key: string): ConfigValue => {
    if (Array.isArray(v)) return v.map((item) => walk(item, key));
    if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner, k)]));
    if (v === null || v === '') return v;
    if (SECRET_NAME.test(key) && !POINTER_NAME.test(key)) return REDACTED;
    if (typeof v === 'string' && secrets.some((s) => v.includes(s))) return secrets.reduce((text, s) => text.replaceAll(s, REDACTED), v);
    return v;
  };
  return walk(value, '');
}
