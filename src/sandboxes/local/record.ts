// A local sandbox's own record, `sandbox.json` in its folder: what it was created from (secrets kept in a
// separate owner-only file), who owns it (pid, host, start time) and when it expires — what gc reads.
import { readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { GymError } from '../../errors';
import { isSecretName } from '../../util/secrets';
import { SandboxLabels, SandboxSpec, type ResolvedSandboxSpec } from '../schema';

/** A process, named so a reused pid (or a reboot) is not mistaken for it. */
export const ProcessIdentity = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string(),
  bootId: z.string(),
  /** Clock ticks after boot at which the process started (/proc/<pid>/stat, field 22). */
  startTime: z.number().int().nonnegative(),
});
export type ProcessIdentity = z.infer<typeof ProcessIdentity>;

export const SandboxRecord = z.strictObject({
  id: z.string(),
  labels: SandboxLabels,
  /** The spec, its secret-named env values left out (they are in `secret-env.json`). */
  spec: SandboxSpec,
  owner: ProcessIdentity,
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  /** Set while the sandbox is being destroyed: gc and attach treat it as gone. */
  destroying: z.boolean().default(false),
});
export type SandboxRecord = z.output<typeof SandboxRecord>;

export const RECORD_FILE = 'sandbox.json';
const SECRET_ENV_FILE = 'secret-env.json';

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** When a live process started (clock ticks after boot); undefined once it is gone or a zombie. */
export function processStartTime(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // Fields after the name start at field 3 (state); a zombie is as good as gone.
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return Number(fields[22 - 3]);
  } catch {
    return undefined;
  }
}

export function processIdentity(pid = process.pid): ProcessIdentity {
  return { pid, host: hostname(), bootId: bootId(), startTime: processStartTime(pid) ?? 0 };
}

/** true or false when this machine can tell; null for a process on another host. */
export function isAlive(who: ProcessIdentity): boolean | null {
  if (who.host !== hostname()) return null;
  if (who.bootId !== bootId()) return false;
  return processStartTime(who.pid) === who.startTime;
}

export async function writeRecord(dir: string, record: SandboxRecord): Promise<void> {
  const env = record.spec.env ?? {};
  const secret = Object.fromEntries(Object.entries(env).filter(([key]) => isSecretName(key)));
  const plain = Object.fromEntries(Object.entries(env).filter(([key]) => !isSecretName(key)));
  if (Object.keys(secret).length) await writeFile(join(dir, SECRET_ENV_FILE), JSON.stringify(secret), { mode: 0o600 });
  // Atomic, so a reader never sees half a record.
  const tmp = join(dir, `.${RECORD_FILE}.${process.pid}`);
  await writeFile(tmp, `${JSON.stringify({ ...record, spec: { ...record.spec, env: plain } }, null, 2)}\n`);
  await rename(tmp, join(dir, RECORD_FILE));
}

/** The record with its secrets put back; undefined when the folder holds no (readable) sandbox. */
export async function readRecord(dir: string): Promise<SandboxRecord | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, RECORD_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = SandboxRecord.safeParse(JSON.parse(text));
  if (!parsed.success) throw new GymError('BAD_INPUT', `${join(dir, RECORD_FILE)} is not a sandbox record: ${parsed.error.issues[0]?.message}`);
  const secret = await readFile(join(dir, SECRET_ENV_FILE), 'utf8').then(
    (t) => JSON.parse(t) as Record<string, string>,
    () => ({}),
  );
  return { ...parsed.data, spec: { ...parsed.data.spec, env: { ...parsed.data.spec.env, ...secret } } };
}

export function resolvedSpec(record: SandboxRecord): ResolvedSandboxSpec {
  return SandboxSpec.parse(record.spec);
}
