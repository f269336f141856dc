// `gym eval export-training <run>`: every recorded rollout's model calls rebuilt into one training
// response per line (docs/training.md), read from the run folder alone; progress on stderr.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { resolveEnvironment } from '../../environments/registry';
import { GymError } from '../../errors';
import { readManifest } from '../../runs/client';
import { exportTraining, type ExportSummary } from '../../training/export';
import { parseFlags } from '../args';

const USAGE = `usage: gym eval export-training <run folder> [--output FILE]

  One JSONL line per recorded rollout: prompt and response token ids, the loss mask, log-probs, reward,
  whether the rollout is masked and why, and which calls were used or dropped (docs/training.md).
  Rollouts in the sidecar (failures.jsonl) are not exported.
  --output FILE   where to write the lines (default: <run folder>/training.jsonl)`;

/** How often a progress line is printed when stderr is not a terminal. */
const PLAIN_EVERY_MS = 5000;

function counts(tally: Partial<Record<string, number>>): string {
  return Object.entries(tally)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

export function formatSummary(s: ExportSummary): string[] {
  const lines = [`training: ${s.output} (${s.exported} rollouts, ${s.masked} masked${s.masked ? `: ${counts(s.maskReasons)}` : ''})`];
  if (Object.keys(s.droppedCalls).length) lines.push(`  calls left out: ${counts(s.droppedCalls)}`);
  if (s.sidecar) lines.push(`  not exported: ${s.sidecar} in the sidecar (failures.jsonl)`);
  if (s.unattributedCallLines) lines.push(`  model call lines unreadable and naming no rollout: ${s.unattributedCallLines}`);
  return lines;
}

export async function evalExportTraining(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { output: { type: 'string', short: 'o' } }, USAGE);
  if (values.help) return say(USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `expected one run folder\n\n${USAGE}`);
  const dir = path.resolve(positionals[0]!);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new GymError('NOT_FOUND', `run folder ${dir} does not exist\n\n${USAGE}`);
  const output = path.resolve(values.output ?? path.join(dir, 'training.jsonl'));
  const stream = process.stderr;
  let last = Date.now();
  const summary = await exportTraining(dir, {
    output,
    onProgress: (done, total) => {
      const now = Date.now();
      if (stream.isTTY) {
        if (now - last >= 200 || done === total) stream.write(`\r\x1b[2Kexport-training: ${done}/${total} rollouts${done === total ? '\n' : ''}`);
      } else if (now - last >= PLAIN_EVERY_MS) stream.write(`export-training: ${done}/${total} rollouts\n`);
      else return;
      last = now;
    },
  });
  for (const line of formatSummary(summary)) say(line);
  const evaluationOnly = await evaluationOnlyReason(dir);
  if (evaluationOnly) say(`warning: ${evaluationOnly.env} is for evaluation only: ${evaluationOnly.reason}`);
}

/** The run's environment and why it is for evaluation only, when it is (and the manifest names one this build knows). */
async function evaluationOnlyReason(dir: string): Promise<{ env: string; reason: string } | undefined> {
  const manifest = await readManifest(dir).catch(() => undefined);
  if (!manifest) return undefined;
  try {
    const env = resolveEnvironment(manifest.config.env);
    return env.evaluationOnly ? { env: env.name, reason: env.evaluationOnly } : undefined;
  } catch {
    // An environment this build does not know: the export needs nothing of it, and there is nothing to say.
    return undefined;
  }
}
