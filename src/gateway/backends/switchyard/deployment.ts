// A Switchyard TOML deployment as a run records it: read and checked for the route a spec names (every
// problem named by file and field), hashed, and its secrets redacted before its text goes into the run folder.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { GymError } from '../../../errors';
import { sha256Hex } from '../../canonical';

export interface Deployment {
  path: string;
  sha256: string;
  /** The file's text with every `api_key` value and `extra_headers` value replaced by `<redacted>`. */
  redacted: string;
  /** The ids of its `[routes.*]`: the model names the proxy answers to. */
  routes: string[];
}

const REDACTED = '<redacted>';

/** Reads a deployment and checks that it is TOML with `schema_version` and a route of id `route`. */
export function readDeployment(file: string, route: string): Deployment {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new GymError('BAD_INPUT', `switchyard deployment ${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new GymError('BAD_INPUT', `switchyard deployment ${file}: not TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc.schema_version === undefined) throw new GymError('BAD_INPUT', `switchyard deployment ${file}: schema_version: missing (Switchyard 0.3.0 reads schema_version = 1)`);
  const tables = doc.routes;
  if (tables === undefined || typeof tables !== 'object' || Array.isArray(tables))
    throw new GymError('BAD_INPUT', `switchyard deployment ${file}: routes: no [routes.<name>] table, so the proxy would serve no model`);
  const routes = Object.entries(tables as Record<string, unknown>).map(([key, value]) => {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') throw new GymError('BAD_INPUT', `switchyard deployment ${file}: routes.${key}.id: missing (the model name clients ask the route by)`);
    return id;
  });
  if (!routes.includes(route)) throw new GymError('BAD_INPUT', `switchyard deployment ${file}: routes: no route has id "${route}" (the spec's model); its routes: ${routes.join(', ')}`);
  return { path: file, sha256: sha256Hex(text), redacted: redactDeployment(text, doc), routes };
}

/** The text with its secrets out: `api_key = …` lines, and every string an `api_key` key or an `extra_headers` table holds. */
export function redactDeployment(text: string, doc: unknown): string {
  const secrets = new Set<string>();
  const collect = (node: unknown, headers: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item) => collect(item, headers));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'string' && (headers || key === 'api_key')) secrets.add(value);
      else collect(value, headers || key === 'extra_headers');
    }
  };
  collect(doc, false);
  let out = text.replace(/^(\s*api_key\s*=\s*).*$/gm, `$1"${REDACTED}"`);
  // Longest first, so a secret that contains another is not left half-visible.
  for (const secret of [...secrets].filter(Boolean).sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
  return out;
}
