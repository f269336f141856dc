// `--model-spec FILE` and `--condition NAME=FILE`: a whole model spec in YAML or JSON (any backend: a
// Switchyard proxy, Gymflow's routed model over targets, …), its relative paths taken from the file's
// folder, a mock target's environment and tasks defaulting to the run's; every problem named by file and field.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { GymError } from '../errors';
import { ModelSpec, type ModelSpecInput } from '../gateway/spec';

/** Spec fields that hold file paths. */
const PATH_FIELDS = ['deployment', 'proxy_log_file', 'tasks_file', 'endpoint_file'] as const;

function withRunDefaults(spec: Record<string, unknown>, base: string, run: { envName: string; runDir: string }): Record<string, unknown> {
  const out = { ...spec };
  for (const field of PATH_FIELDS) if (typeof out[field] === 'string') out[field] = path.resolve(base, out[field] as string);
  if (out.backend === 'mock') {
    out.env ??= run.envName;
    out.tasks_file ??= path.join(run.runDir, 'tasks.jsonl');
  }
  if (out.backend === 'routed' && out.targets && typeof out.targets === 'object') {
    out.targets = Object.fromEntries(
      Object.entries(out.targets as Record<string, unknown>).map(([name, t]) => [name, t && typeof t === 'object' ? withRunDefaults(t as Record<string, unknown>, base, run) : t]),
    );
  }
  return out;
}

export function readModelSpecFile(file: string, flag: string, run: { envName: string; runDir: string }): ModelSpec {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new GymError('NOT_FOUND', `${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new GymError('BAD_INPUT', `${flag}: ${file} is not YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new GymError('BAD_INPUT', `${flag}: ${file} must hold one model spec (a mapping with backend: …)`);
  const parsed = ModelSpec.safeParse(withRunDefaults(doc as Record<string, unknown>, path.dirname(path.resolve(file)), run) as ModelSpecInput);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(spec)'}: ${i.message}`);
    throw new GymError('BAD_INPUT', `${flag}: ${file}: ${details.join('; ')}`, details);
  }
  return parsed.data;
}
