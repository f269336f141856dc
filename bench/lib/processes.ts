// CPU seconds and peak resident memory of a group of processes (a peer's servers, a Temporal server),
// sampled from /proc while a case runs, because those processes are not children this script can time.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessMatch {
  /** These processes and all their descendants. */
  roots?: number[];
  /** Any process whose command line contains one of these strings (e.g. a venv path: Ray daemons are not descendants). */
  cmdlineIncludes?: string[];
}

export interface Usage {
  cpu_seconds: number;
  peak_rss_mib: number;
  /** Largest number of matching processes seen at once. */
  processes: number;
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const PAGE = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }));

interface Stat {
  ppid: number;
  start: number;
  cpu: number;
  rss: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; the fields after the last ')' are fixed.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / TICKS, start: Number(f[19]), rss: Number(f[21]) * PAGE };
  } catch {
    return undefined;
  }
}

/** CPU milliseconds (user + system) one process has used so far: what it spent, whatever the others do. */
export function cpuMs(pid: number): number {
  const stat = readStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.cpu * 1000;
}

const schedNs = (file: string) => Number(readFileSync(file, 'utf8').split(' ')[0]);

/**
 * CPU milliseconds from the scheduler's nanosecond counters (/proc/PID/task/TID/schedstat), where cpuMs counts
 * 10 ms ticks: the main thread's (a Node process's event loop) and all its threads' (thread pool, GC helpers).
 */
export function threadCpuMs(pid: number): { main: number; all: number } {
  let all = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      all += schedNs(`/proc/${pid}/task/${tid}/schedstat`);
    } catch {
      // The thread ended since the listing.
    }
  }
  return { main: schedNs(`/proc/${pid}/task/${pid}/schedstat`) / 1e6, all: all / 1e6 };
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Samples the matching processes until stop(); CPU counts only what they used while watched. */
export function watchProcesses(match: ProcessMatch, intervalMs = 500): { stop(): Usage } {
  const cmdlines = new Map<string, string>();
  // key pid:start → cpu when first seen (0 for a process born while watched) and when last seen.
  const cpu = new Map<string, { first: number; last: number }>();
  let peakRss = 0;
  let peakCount = 0;
  let firstSample = true;

  const sample = () => {
    const stats = new Map<number, Stat>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const s = readStat(pid);
      if (s) stats.set(pid, s);
    }
    const children = new Map<number, number[]>();
    for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
    const matched = new Set<number>();
    const stack = [...(match.roots ?? [])];
    while (stack.length) {
      const pid = stack.pop()!;
      if (matched.has(pid) || !stats.has(pid)) continue;
      matched.add(pid);
      stack.push(...(children.get(pid) ?? []));
    }
    if (match.cmdlineIncludes?.length) {
      for (const [pid, s] of stats) {
        const key = `${pid}:${s.start}`;
        if (!cmdlines.has(key)) cmdlines.set(key, readCmdline(pid));
        if (match.cmdlineIncludes.some((m) => cmdlines.get(key)!.includes(m))) matched.add(pid);
      }
    }
    let rss = 0;
    for (const pid of matched) {
      const s = stats.get(pid)!;
      const key = `${pid}:${s.start}`;
      const seen = cpu.get(key);
      if (seen) seen.last = s.cpu;
      else cpu.set(key, { first: firstSample ? s.cpu : 0, last: s.cpu });
      rss += s.rss;
    }
    firstSample = false;
    peakRss = Math.max(peakRss, rss);
    peakCount = Math.max(peakCount, matched.size);
  };

  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const { first, last } of cpu.values()) total += last - first;
      return { cpu_seconds: total, peak_rss_mib: peakRss / 2 ** 20, processes: peakCount };
    },
  };
}

export interface WatchedRun {
  code: number | null;
  stdout: string;
  /** The end of stderr, for error messages. */
  stderrTail: string;
  /** Seconds from spawn to exit. */
  seconds: number;
  /** Seconds from spawn to the first output line `startMarker` matched (undefined when none did). */
  markedAt?: number;
  usage: Usage;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Other processes whose usage counts with the child's (e.g. a peer's servers). */
  alsoWatch?: ProcessMatch;
  /** A line (stdout or stderr) that marks where the measured part starts, after start-up. */
  startMarker?: RegExp;
}

/** Runs a command to its end while watching its (and `alsoWatch`'s) CPU and memory. */
export async function runWatched(command: string, args: string[], opts: RunOptions = {}): Promise<WatchedRun> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const watch = watchProcesses({
    roots: [child.pid!, ...(opts.alsoWatch?.roots ?? [])],
    cmdlineIncludes: opts.alsoWatch?.cmdlineIncludes,
  });
  let stdout = '';
  let stderr = '';
  let markedAt: number | undefined;
  // The marker may straddle two chunks, so each chunk is tested with the end of the one before.
  let tail = '';
  const look = (text: string) => {
    if (markedAt === undefined && opts.startMarker?.test(tail + text)) markedAt = (performance.now() - started) / 1000;
    tail = text.slice(-500);
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    look(d);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-20_000);
    look(d);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  const seconds = (performance.now() - started) / 1000;
  return { code, stdout, stderrTail: stderr.slice(-3000), seconds, markedAt, usage: watch.stop() };
}
