// Sends a finished run to its exporters and records how each did in the run folder's exports.json.
// Best-effort after a run: an exporter's failure is logged and reported there, and never fails the run.
import path from 'node:path';
import { z } from 'zod';
import { GymError, isGymError } from '../errors';
import { RunStore } from '../store/run-store';
import type { ExporterName, ExportersConfig } from './config';
import { configuredExporters } from './registry';
import { numericMetrics, readRunSource, runParams } from './source';

export const ExportStatus = z.object({
  status: z.enum(['ok', 'failed']),
  finished_at: z.string(),
  duration_ms: z.number(),
  /** The destination's run page or the offline run folder. */
  target: z.string().optional(),
  run_id: z.string().optional(),
  uploaded: z.array(z.string()),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** The workflow execution whose finalize exported: a retried finalize does not export the run twice. */
  workflow_run_id: z.string().optional(),
});
export type ExportStatus = z.infer<typeof ExportStatus>;

export const ExportsReport = z.object({ exporters: z.record(z.string(), ExportStatus) });
export type ExportsReport = z.infer<typeof ExportsReport>;

export interface ExportLog {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** All exporters together, inside the finalize activity's 30 minutes (which also compacts the results). */
const EXPORT_TIMEOUT_MS = 20 * 60_000;

export const exportsPath = (runDir: string) => path.join(runDir, 'exports.json');

export async function readExports(runDir: string): Promise<ExportsReport | undefined> {
  const parsed = ExportsReport.safeParse(await new RunStore(runDir).readJson<unknown>(exportsPath(runDir)));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Exports the run in `runDir` with `config` (default: the manifest's) to every exporter it sets up (or
 * those in `only`), all at once, and merges their statuses into exports.json. Throws only when the folder
 * is not a finished run; returns undefined when no exporter is configured.
 */
export async function exportRun(opts: { runDir: string; config?: ExportersConfig; only?: readonly ExporterName[]; workflowRunId?: string; log?: ExportLog }): Promise<ExportsReport | undefined> {
  const store = new RunStore(opts.runDir);
  const source = await readRunSource(opts.runDir);
  const config = opts.config ?? source.manifest.config.exporters;
  if (!config) return undefined;
  const previous = (await readExports(opts.runDir))?.exporters ?? {};
  const exporters = configuredExporters(config, opts.only).filter((e) => {
    const done = previous[e.name];
    return !(opts.workflowRunId && done?.status === 'ok' && done.workflow_run_id === opts.workflowRunId);
  });
  if (!exporters.length) return Object.keys(previous).length ? { exporters: previous } : undefined;
  const files = config.upload_rollouts ? source.files : source.files.filter((f) => f.path !== store.rolloutsPath);
  const input = { runDir: opts.runDir, manifest: source.manifest, params: runParams(source.manifest), metrics: numericMetrics(source.metrics), files, signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS) };
  const results = await Promise.all(
    exporters.map(async (exporter): Promise<[string, ExportStatus]> => {
      const started = Date.now();
      const base = { finished_at: '', duration_ms: 0, workflow_run_id: opts.workflowRunId };
      let status: ExportStatus;
      try {
        const out = await exporter.export(input);
        status = { ...base, status: 'ok', ...out };
        opts.log?.info(`exported the run to ${exporter.name}`, { exporter: exporter.name, target: out.target });
      } catch (e) {
        const err = isGymError(e) ? e : new GymError('INTERNAL', (e as Error)?.message ?? String(e));
        status = { ...base, status: 'failed', uploaded: [], error: { code: err.code, message: err.message } };
        opts.log?.warn(`exporting the run to ${exporter.name} failed (the run itself is unaffected): ${err.message}`, { exporter: exporter.name, code: err.code });
      }
      return [exporter.name, { ...status, finished_at: new Date().toISOString(), duration_ms: Date.now() - started }];
    }),
  );
  const report: ExportsReport = { exporters: { ...previous, ...Object.fromEntries(results) } };
  await store.writeJson(exportsPath(opts.runDir), report);
  return report;
}

/** After a run's finalize: exports as configured, and never throws — an exporter must not fail a run. */
export async function exportAfterRun(runDir: string, workflowRunId: string | undefined, log: ExportLog): Promise<void> {
  try {
    await exportRun({ runDir, workflowRunId, log });
  } catch (e) {
    log.warn(`exporting the run failed (the run itself is unaffected): ${(e as Error)?.message ?? String(e)}`);
  }
}

/** One line per exporter for the terminal. */
export function formatExports(report: ExportsReport, names: readonly string[] = Object.keys(report.exporters)): string[] {
  return names.flatMap((name) => {
    const s = report.exporters[name];
    if (!s) return [];
    return s.status === 'ok'
      ? [`export ${name}: ok → ${s.target}${s.uploaded.length ? ` (${s.uploaded.join(', ')})` : ''}`]
      : [`export ${name}: FAILED (${s.error?.code}): ${s.error?.message} — the run itself is complete; retry with \`gym eval export\``];
  });
}
