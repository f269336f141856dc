// Secret-looking values blanked before a configuration is shown: values under keys that name a key, token
// or password, and any text holding the value of an environment variable whose name says it is a secret.
import { isSecretName } from '../util/secrets';
import { isMap, type ConfigValue } from './tree';

export const REDACTED = '***';

/** An environment variable that may hold a secret, anywhere in its name (AWS_SECRET_ACCESS_KEY): blanking a value too many costs nothing. */
const SECRET_VARIABLE = /(api[_-]?key|token|secret|password|passwd|credential|authorization)/i;

export function redact(value: ConfigValue, env: Readonly<Record<string, string | undefined>> = {}): ConfigValue {
  const secrets = Object.entries(env)
    .filter(([name, v]) => SECRET_VARIABLE.test(name) && v !== undefined && v.length >= 6)
    .map(([, v]) => v!);
  const walk = (v: ConfigValue, key: string): ConfigValue => {
    if (Array.isArray(v)) return v.map((item) => walk(item, key));
    if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner, k)]));
    if (v === null || v === '') return v;
    if (isSecretName(key)) return REDACTED;
    if (typeof v === 'string' && secrets.some((s) => v.includes(s))) return secrets.reduce((text, s) => text.replaceAll(s, REDACTED), v);
    return v;
  };
  return walk(value, '');
}
