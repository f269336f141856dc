// Ports for test servers that neither the kernel nor another test process can hand out meanwhile: they
// lie below the ephemeral range, and each is reserved by a lock file naming this process until released.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from '../../src/util/process';

const LOCK_DIR = path.join(os.tmpdir(), 'gymflow-port-locks');
const LOWEST = 10_000;

/** The low end of the kernel's ephemeral range: listen(0) and outgoing connections never go below it. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // Not Linux: 32768 is Linux's default and below the BSD/macOS/Windows range (49152).
  }
  return 32768;
}

const end = ephemeralLow();
const start = end - LOWEST >= 1000 ? LOWEST : 1024;
const size = end - start;
// A random start per process, so parallel vitest workers walk different stretches of the range.
let cursor = Math.floor(Math.random() * size);
const held = new Set<number>();

const lockName = (port: number, pid: number) => `${port}.${pid}`;

/**
 * Takes the lock on a port: write our own `<port>.<pid>` file, then look for others. Whoever looks
 * second sees the first one's file and backs off, so two processes never both own a port; files of
 * dead processes are removed (only by name, so a live owner's file is never touched).
 */
function tryLock(port: number): boolean {
  mkdirSync(LOCK_DIR, { recursive: true });
  const mine = lockName(port, process.pid);
  // A file with our pid in its name can only be ours or a dead namesake's, so overwriting it is safe.
  writeFileSync(path.join(LOCK_DIR, mine), '');
  const rivals = readdirSync(LOCK_DIR).filter((f) => f.startsWith(`${port}.`) && f !== mine);
  let taken = false;
  for (const f of rivals) {
    if (pidAlive(Number(f.slice(f.indexOf('.') + 1)))) taken = true;
    else rmSync(path.join(LOCK_DIR, f), { force: true });
  }
  if (taken) rmSync(path.join(LOCK_DIR, mine), { force: true });
  return !taken;
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** The port reservePort tries next (it skips it when taken). */
export function nextCandidatePort(): number {
  return start + (cursor % size);
}

/** A port that nothing listens on now and that no cooperating process will take until releasePort. */
export async function reservePort(host = '127.0.0.1'): Promise<number> {
  for (let tried = 0; tried < size; tried++) {
    const port = nextCandidatePort();
    cursor++;
    if (held.has(port)) continue;
    if (!tryLock(port)) continue;
    held.add(port);
    if (await canBind(port, host)) return port;
    releasePort(port);
  }
  throw new Error(`no free port between ${start} and ${end - 1}`);
}

export function releasePort(port: number): void {
  if (held.delete(port)) rmSync(path.join(LOCK_DIR, lockName(port, process.pid)), { force: true });
}

process.once('exit', () => {
  for (const port of [...held]) releasePort(port);
});
