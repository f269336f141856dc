// Finding and removing leftover sandboxes: those whose owner process died (a killed worker), whose
// lifetime passed, or (when asked) a run's or all. Used by `gym sandbox gc` and by a worker at start-up.
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { isGymError } from '../errors';
import { defaultSocketPath } from './docker/engine';
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

/** How long a worker's start waits for a provider to list its sandboxes (an engine that hangs must not stop it). */
const REAP_LIST_TIMEOUT_MS = 15_000;

/** The providers whose leftovers this machine can see: local always; docker when an engine socket is here. */
function reapableProviders(): string[] {
  try {
    return existsSync(defaultSocketPath()) ? ['local', 'docker'] : ['local'];
  } catch {
    // DOCKER_HOST names a remote engine: its containers may be other machines' workers'.
    return ['local'];
  }
}

/**
 * Removes the orphans (owner process gone: a killed worker) and expired sandboxes of the providers whose
 * sandboxes live on this machine: what a worker does at start-up, so leftovers do not pile up. A provider
 * that cannot be reached is logged and skipped.
 */
export async function reapOrphans(logger?: Logger, providers: readonly string[] = reapableProviders()): Promise<Collected[]> {
  const all: Collected[] = [];
  for (const name of providers) {
    let timer: NodeJS.Timeout | undefined;
    try {
      const provider = await sandboxProvider(name);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${REAP_LIST_TIMEOUT_MS / 1000} s`)), REAP_LIST_TIMEOUT_MS);
      });
      const collected = await Promise.race([collectGarbage(provider, {}), timeout]);
      for (const c of collected) {
        if (c.error) logger?.warn({ provider: name, sandbox: c.info.id, reason: c.reason, err: c.error }, 'could not remove a leftover sandbox');
        else logger?.info({ provider: name, sandbox: c.info.id, reason: c.reason, labels: c.info.labels }, 'removed a leftover sandbox');
      }
      all.push(...collected);
      await (provider as { close?: () => Promise<void> }).close?.();
    } catch (error) {
      logger?.warn({ provider: name, err: (error as Error).message }, 'could not look for leftover sandboxes');
    } finally {
      clearTimeout(timer);
    }
  }
  return all;
}
