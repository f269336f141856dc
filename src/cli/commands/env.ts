// `gym env list`: the environments this build knows.
import type { Logger } from 'pino';
import { environmentNames, getEnvironment } from '../../environments/registry';
import type { AnyEnvironment } from '../../environments/types';
import { parseFlags } from '../args';

export async function envList(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'usage: gym env list [--json]');
  const envs = environmentNames().map((n) => getEnvironment(n));
  if (values.json) {
    const rows = envs.map((e) => ({
      name: e.name,
      description: e.description,
      agent: e.agent,
      reverify_mode: e.reverifyMode,
      tools: Object.keys(e.tools),
      ...needs(e),
      evaluation_only: e.evaluationOnly !== undefined,
      ...(e.evaluationOnly ? { evaluation_only_reason: e.evaluationOnly } : {}),
    }));
    return say(JSON.stringify(rows, null, 2));
  }
  say(`${'NAME'.padEnd(48)} ${'USE'.padEnd(11)} ${'NEEDS'.padEnd(24)} DESCRIPTION`);
  for (const e of envs) say(`${e.name.padEnd(48)} ${(e.evaluationOnly ? 'eval' : 'train,eval').padEnd(11)} ${needsLabel(e).padEnd(24)} ${e.description}`);
  say('use: eval = evaluation only (a benchmark without a training split: see --json for why); train,eval = rollouts may also be training data');
  say(
    'needs: judge = a judge model (--judge-model); sandbox = a harness in a sandbox (--agent); jail = bubblewrap (bwrap) on the worker; desktop = an OSWorld desktop VM server (--env-option desktop_url); download = parts reported unavailable here (see --json)',
  );
}

/** What a run of the environment needs beyond the policy model. */
function needs(e: AnyEnvironment): { needs_judge: boolean; needs_sandbox: boolean; needs_jail: boolean; needs_desktop: boolean; needs_download: readonly string[] } {
  return { needs_judge: !!e.requiresJudge, needs_sandbox: !!e.sandboxed || !!e.workspaceFiles, needs_jail: !!e.needsJail, needs_desktop: !!e.needsDesktop, needs_download: e.needsDownload ?? [] };
}

function needsLabel(e: AnyEnvironment): string {
  const n = needs(e);
  const parts = [n.needs_judge && 'judge', n.needs_sandbox && 'sandbox', n.needs_jail && 'jail', n.needs_desktop && 'desktop', n.needs_download.length > 0 && 'download'].filter(Boolean);
  return parts.length ? parts.join(',') : '-';
}
