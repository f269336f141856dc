// Every process of one local sandbox, found from any process on the machine: each jail's outer process
// carries the sandbox's marker in its environment, and everything inside shares that jail's pid namespace.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export const MARKER = 'GYMFLOW_SANDBOX_ID';

interface Proc {
  pid: number;
  ppid: number;
  pidNs?: string;
  marked: boolean;
}

function scan(id: string): Proc[] {
  const needle = `${MARKER}=${id}\0`;
  const procs: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ');
      if (stat[0] === 'Z' || stat[0] === 'X') continue;
      let marked = false;
      try {
        marked = `${readFileSync(`/proc/${pid}/environ`, 'latin1')}\0`.includes(needle);
      } catch {
        // Not ours to read: not one of ours either.
      }
      let pidNs: string | undefined;
      try {
        pidNs = readlinkSync(`/proc/${pid}/ns/pid`);
      } catch {
        // Gone meanwhile, or not readable.
      }
      procs.push({ pid, ppid: Number(stat[1]), pidNs, marked });
    } catch {
      // Exited while scanned.
    }
  }
  return procs;
}

/**
 * The sandbox's outer jail processes and supervisors, and every process inside its jails. `namespaces`
 * collects the jails' pid namespaces, so a jail whose outer process is already gone is still found.
 */
export function sandboxProcesses(id: string, namespaces = new Set<string>()): number[] {
  const procs = scan(id);
  const own = process.pid;
  const marked = new Set(procs.filter((p) => p.marked).map((p) => p.pid));
  const hostNs = (() => {
    try {
      return readlinkSync(`/proc/${own}/ns/pid`);
    } catch {
      return undefined;
    }
  })();
  // A jail's first process is a child of a marked one in a namespace of its own.
  for (const p of procs) if (marked.has(p.ppid) && p.pidNs && p.pidNs !== hostNs) namespaces.add(p.pidNs);
  return procs.filter((p) => p.marked || (p.pidNs !== undefined && namespaces.has(p.pidNs))).map((p) => p.pid);
}

/** SIGKILLs every process of the sandbox and waits (bounded) until none is left. */
export async function killSandboxProcesses(id: string, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  const namespaces = new Set<string>();
  let left = sandboxProcesses(id, namespaces);
  const killed = new Set<number>();
  while (left.length && Date.now() < deadline) {
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = sandboxProcesses(id, namespaces);
  }
  return [...killed];
}
