// What every exporter is given and gives back: a finished run's settings, numeric metrics and files in,
// where they went out. Exporters throw GymErrors; the framework (run-exports.ts) turns them into reports.
import type { Manifest } from '../runs/manifest';
import type { ExporterName } from './config';

export interface ExportFile {
  /** The artifact's name at the destination, e.g. rollouts.jsonl. */
  name: string;
  path: string;
}

export interface ExportInput {
  runDir: string;
  manifest: Manifest;
  /** The run's resolved settings, flattened to dotted keys; no secrets (those are only named). */
  params: Record<string, string>;
  /** Every numeric value in metrics.json, flattened to slash-separated keys. */
  metrics: Record<string, number>;
  /** metrics.json, failures.jsonl and (with upload_rollouts) rollouts.jsonl, those the run has. */
  files: ExportFile[];
  signal: AbortSignal;
}

export interface ExportResult {
  /** Where it went: the tracking server's run page, or the offline run folder. */
  target: string;
  /** The destination's own id of the run. */
  run_id?: string;
  uploaded: string[];
}

export interface Exporter {
  readonly name: ExporterName;
  export(input: ExportInput): Promise<ExportResult>;
}
