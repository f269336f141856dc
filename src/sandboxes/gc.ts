// Finding and removing leftover sandboxes: those whose owner process died (a killed worker), whose
// lifetime passed, or (when asked) a run's or all. Used by `gym sandbox gc` and by a worker at start-up.
import type { Logger } from 'pino';
import { isGymError } from '../errors';
import type { SandboxProvider } from './provider';
import { sandboxProvider } from './registry';
import type { SandboxInfo } from './schema';

export type GcReason = 'orphaned' | 'expired' | 'run' | 'all';

export interface GcSelection {
  /** Only this run's sandboxes, every one of them (live or not). */
  run?: string;
  /** Every sandbox, live or not. */
  all?: boolean;
}

/** Why `info` is garbage under `selection` at `now`, or undefined when it is kept. */
export function gcReason(info: SandboxInfo, selection: GcSelection, now: Date): GcReason | undefined {
  if (selection.run !== undefined && info.labels.run !== selection.run) return undefined;
  if (selection.all) return 'all';
  if (selection.run !== undefined) return 'run';
  if (info.ownerAlive === false) return 'orphaned';
  if (info.expiresAt && Date.parse(info.expiresAt) <= now.getTime()) return 'expired';
  return undefined;
}

export interface Collected {
  info: SandboxInfo;
  reason: GcReason;
  /** Set when destroying it failed (it is then still there). */
  error?: string;
}

/** Destroys what `selection` names (only lists it with `dryRun`). */
export async function collectGarbage(provider: SandboxProvider, selection: GcSelection & { dryRun?: boolean }, now = new Date()): Promise<Collected[]> {
  const collected: Collected[] = [];
  for (const info of await provider.list(selection.run ? { run: selection.run } : undefined)) {
    const reason = gcReason(info, selection, now);
    if (!reason) continue;
    if (selection.dryRun) {
      collected.push({ info, reason });
      continue;
    }
    try {
      await (await provider.attach(info.id)).destroy();
      collected.push({ info, reason });
    } catch (error) {
      // Gone meanwhile (another reaper, its own destroy): what was asked for holds.
      if (isGymError(error) && error.code === 'NOT_FOUND') collected.push({ info, reason });
      else collected.push({ info, reason, error: (error as Error).message });
    }
  }
  return collected;
}

/**
 * Removes the orphans and expired sandboxes of the `local` provider (the only one whose leftovers are on
 * this machine): what a worker does at start-up, so a killed worker's jails and folders do not pile up.
 */
export async function reapOrphans(logger?: Logger): Promise<Collected[]> {
  const collected = await collectGarbage(await sandboxProvider('local'), {});
  for (const c of collected) {
    if (c.error) logger?.warn({ sandbox: c.info.id, reason: c.reason, err: c.error }, 'could not remove a leftover sandbox');
    else logger?.info({ sandbox: c.info.id, reason: c.reason, labels: c.info.labels }, 'removed a leftover sandbox');
  }
  return collected;
}
