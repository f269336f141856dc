// `gym sandbox list|gc`: the sandboxes a provider holds (by run, rollout, attempt and user), and removing
// leftovers — a dead owner's, expired ones, a run's, or all.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { collectGarbage } from '../../sandboxes/gc';
import { sandboxProvider, sandboxProviderNames } from '../../sandboxes/registry';
import type { SandboxInfo } from '../../sandboxes/schema';
import { parseFlags } from '../args';

const PROVIDERS = sandboxProviderNames().join('|');
const LIST_USAGE = `usage: gym sandbox list [--run <id>] [--provider ${PROVIDERS}] [--json] (default local)`;
const GC_USAGE = `usage: gym sandbox gc [--run <id>] [--all] [--dry-run] [--provider ${PROVIDERS}] [--json] (default local)
  removes sandboxes whose owner process is dead or whose lifetime passed; with --run, every sandbox of that
  run; with --all, every sandbox. --dry-run only lists them. Local sandboxes live in $GYMFLOW_SANDBOX_ROOT
  (default .gymflow/sandboxes); each other provider is configured from the environment (docs/sandboxes.md).`;

const owner = (info: SandboxInfo) => (info.ownerAlive === false ? 'dead' : info.ownerAlive === null ? 'unknown' : 'alive');
const row = (info: SandboxInfo) =>
  `${info.id.padEnd(22)} ${info.state.padEnd(8)} owner ${owner(info).padEnd(7)} run ${info.labels.run} rollout ${info.labels.rollout} attempt ${info.labels.attempt} user ${info.labels.user} created ${info.createdAt}${info.expiresAt ? ` expires ${info.expiresAt}` : ''}`;

function rejectPositionals(positionals: string[], usage: string): void {
  if (positionals.length) throw new GymError('BAD_FLAG', `unexpected argument ${JSON.stringify(positionals[0])}\n\n${usage}`);
}

export async function sandboxList(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, { run: { type: 'string' }, provider: { type: 'string', default: 'local' }, json: { type: 'boolean' } }, LIST_USAGE);
  if (values.help) return say(LIST_USAGE);
  rejectPositionals(positionals, LIST_USAGE);
  const provider = await sandboxProvider(values.provider as string);
  const infos = await provider.list(values.run ? { run: values.run as string } : undefined);
  if (values.json) return say(JSON.stringify(infos, null, 2));
  if (!infos.length) return say(`no ${provider.name} sandboxes${values.run ? ` of run ${String(values.run)}` : ''}`);
  for (const info of infos) say(row(info));
}

export async function sandboxGc(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { run: { type: 'string' }, all: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, provider: { type: 'string', default: 'local' }, json: { type: 'boolean' } },
    GC_USAGE,
  );
  if (values.help) return say(GC_USAGE);
  rejectPositionals(positionals, GC_USAGE);
  const provider = await sandboxProvider(values.provider as string);
  const dryRun = Boolean(values['dry-run']);
  const collected = await collectGarbage(provider, { run: values.run as string | undefined, all: Boolean(values.all), dryRun });
  const failed = collected.filter((c) => c.error);
  if (values.json)
    say(
      JSON.stringify(
        collected.map((c) => ({ ...c.info, reason: c.reason, removed: !dryRun && !c.error, error: c.error })),
        null,
        2,
      ),
    );
  else {
    for (const c of collected) say(`${dryRun ? 'would remove' : c.error ? 'could not remove' : 'removed'} ${c.info.id} (${c.reason}; run ${c.info.labels.run})${c.error ? `: ${c.error}` : ''}`);
    say(`${dryRun ? 'would remove' : 'removed'} ${collected.length - failed.length} sandbox(es)`);
  }
  if (failed.length) throw new GymError('RUN_FAILED', `${failed.length} sandbox(es) could not be removed`);
}
