// `gym eval export <run-folder>`: send a finished run to its exporters again (or to others given by flags),
// without Temporal: it reads the run folder. Exits non-zero when an exporter fails.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { EXPORTER_FLAGS, EXPORTERS_USAGE, exportersFromFlags, type ExporterName } from '../../exporters/config';
import { EXPORTER_NAMES } from '../../exporters/registry';
import { exportRun, formatExports } from '../../exporters/run-exports';
import { readRunSource } from '../../exporters/source';
import { parseFlags } from '../args';

const USAGE = `usage: gym eval export <run-folder> [--to mlflow|wandb] [exporter settings]

  Sends a finished run's settings, metrics and files to the exporters in its manifest, or to those the
  flags set up (flags replace the manifest's exporters). Statuses go to <run-folder>/exports.json.
  --to NAME            only this exporter
${EXPORTERS_USAGE}`;

export async function evalExport(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { to: { type: 'string' }, ...EXPORTER_FLAGS }, USAGE);
  if (values.help) return say(USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `name one run folder\n\n${USAGE}`);
  const runDir = positionals[0]!;
  const to = values.to as ExporterName | undefined;
  if (to !== undefined && !EXPORTER_NAMES.includes(to)) throw new GymError('BAD_FLAG', `--to must be one of ${EXPORTER_NAMES.join(', ')}, got "${to}"`);
  const config = exportersFromFlags(values, (m) => process.stderr.write(`gym: warning: ${m}\n`)) ?? (await readRunSource(runDir)).manifest.config.exporters;
  const names = to ? [to] : EXPORTER_NAMES.filter((n) => config?.[n]);
  const missing = names.filter((n) => !config?.[n]);
  if (!names.length || missing.length) {
    throw new GymError(
      'BAD_FLAG',
      `${missing.length ? `no ${missing.join(', ')} exporter` : 'no exporter'} is configured for ${runDir}: pass its settings (e.g. --mlflow-tracking-uri URL or --wandb-project P)`,
    );
  }
  const report = (await exportRun({ runDir, config, only: names }))!;
  for (const line of formatExports(report, names)) say(line);
  const failed = names.map((n) => report.exporters[n]!).filter((s) => s.status === 'failed');
  if (failed.length) throw new GymError(failed[0]!.error!.code as GymError['code'], `${failed.length} of ${names.length} exports failed (see ${runDir}/exports.json)`);
}
