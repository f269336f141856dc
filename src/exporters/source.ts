// What a finished run offers its exporters, read from its folder: the manifest's settings as flat
// params, every number of metrics.json as a flat metric, and the result files. Pure apart from reading.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../errors';
import { Manifest } from '../runs/manifest';
import { RunStore } from '../store/run-store';
import { isSecretName } from '../util/secrets';
import type { ExportFile } from './types';

/** Leaves of nested maps as [path, value]; lists are leaves too unless `intoLists`, then their items are. */
function flatten(value: unknown, prefix: string, sep: string, out: Array<[string, unknown]>, intoLists = false): void {
  if (value !== null && typeof value === 'object' && (intoLists || !Array.isArray(value))) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}${sep}${k}` : k, sep, out, intoLists);
  } else if (prefix) out.push([prefix, value]);
}

/** The run's settings as MLflow-style params: dotted keys, strings; lists as JSON; exporter settings left out. */
export function runParams(manifest: Manifest): Record<string, string> {
  const { exporters: _exporters, ...config } = manifest.config;
  const leaves: Array<[string, unknown]> = [];
  flatten({ run_id: manifest.run_id, identity: manifest.identity, dataset_hash: manifest.dataset_hash, ...config, versions: manifest.versions }, '', '.', leaves);
  const params: Record<string, string> = {};
  for (const [key, value] of leaves) {
    if (value === undefined || value === null || isSecretName(key.split('.').at(-1)!)) continue;
    params[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return params;
}

/** Every finite number in metrics.json (nested maps and lists included), keyed by its path joined with "/". */
export function numericMetrics(metrics: unknown): Record<string, number> {
  const leaves: Array<[string, unknown]> = [];
  flatten(metrics, '', '/', leaves, true);
  return Object.fromEntries(leaves.filter((l): l is [string, number] => typeof l[1] === 'number' && Number.isFinite(l[1])));
}

export interface RunSource {
  manifest: Manifest;
  metrics: Record<string, unknown>;
  files: ExportFile[];
}

/** Reads a finished run's folder; a folder without a manifest or metrics is not an exportable run. */
export async function readRunSource(runDir: string): Promise<RunSource> {
  const store = new RunStore(runDir);
  const rawManifest = await store.readJson<unknown>(store.manifestPath);
  if (rawManifest === undefined) throw new GymError('NOT_FOUND', `${runDir} holds no run (no manifest.json)`);
  const manifest = Manifest.safeParse(rawManifest);
  if (!manifest.success) throw new GymError('BAD_INPUT', `${store.manifestPath} is not a Gymflow manifest: ${manifest.error.issues[0]?.message}`);
  const metrics = await store.readJson<Record<string, unknown>>(store.metricsPath);
  if (!metrics) throw new GymError('NOT_FOUND', `${runDir} has no metrics.json: the run has not finished`);
  const files = [store.metricsPath, store.failuresPath, store.rolloutsPath].filter((f) => existsSync(f)).map((f) => ({ name: path.basename(f), path: f }));
  return { manifest: manifest.data, metrics, files };
}
