// Runs one detached command of a local sandbox to its end, outliving the worker that started it: the
// jail's output goes to files in the command's folder, its exit to status.json, and past its deadline it is killed.
// Plain JavaScript, started with the host's node: a TypeScript loader would add a second to every start.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const launchFile = join(dir, 'launch.json');
const launch = JSON.parse(readFileSync(launchFile, 'utf8'));
// It holds the command's environment (keys included): read once, then gone.
unlinkSync(launchFile);

function startTime(pid) {
  return Number(
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')[22 - 3],
  );
}

function writeJson(name, value) {
  const tmp = join(dir, `.${name}`);
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, join(dir, name));
}

let child;
let timedOut = false;
let killed = false;
let info = '';
let infoOpen = false;
const jailPid = () => Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1] ?? 0);
// bwrap's first process in the jail is in a session of its own and only dies with bwrap once it has set
// its parent-death signal: a kill before bwrap has named it waits (bounded) for the name, then kills both.
const kill = () => {
  if (!child) return;
  if (infoOpen && !jailPid()) {
    setTimeout(kill, 20).unref();
    return;
  }
  for (const target of [-child.pid, jailPid()]) {
    try {
      if (target) process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
};
// Listening before saying who it is: a kill is only sent to a supervisor that has.
process.on('SIGTERM', () => {
  killed = true;
  kill();
});

writeJson('supervisor.json', { pid: process.pid, startTime: startTime(process.pid) });

const out = openSync(join(dir, 'stdout'), 'a');
const err = openSync(join(dir, 'stderr'), 'a');
child = spawn(launch.argv[0], launch.argv.slice(1), {
  cwd: launch.cwd,
  env: launch.env,
  uid: launch.uid,
  gid: launch.gid,
  detached: true,
  stdio: [launch.stdin === undefined ? 'ignore' : 'pipe', out, err, ...(launch.infoFd ? ['pipe'] : [])],
});
infoOpen = Boolean(child.stdio[3]);
const timer = setTimeout(
  () => {
    timedOut = true;
    kill();
  },
  Math.max(0, launch.deadlineAt - Date.now()),
);
if (launch.stdin !== undefined) {
  child.stdin.on('error', () => {});
  child.stdin.end(launch.stdin);
}
child.stdio[3]?.on('data', (chunk) => (info += chunk));
// A kill right after the start can end bwrap before its info was read: the pipe's end (bounded) then
// still gives whatever bwrap wrote.
const infoRead = new Promise((resolve) => {
  if (!child.stdio[3]) return resolve();
  child.stdio[3].on('close', () => {
    infoOpen = false;
    resolve();
  });
  setTimeout(() => {
    infoOpen = false;
    resolve();
  }, 2_000).unref();
});

/** The jail's first process gone (or a zombie) means the kernel has ended its whole pid namespace. */
async function untilGone(pid) {
  for (let waited = 0; pid && waited < 10_000; waited += 20) {
    let state;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    } catch {
      return;
    }
    if (state === 'Z' || state === 'X') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

child.on('error', (error) => {
  clearTimeout(timer);
  writeJson('status.json', { exitCode: null, signal: null, timedOut: false, error: `cannot start ${launch.argv[0]}: ${error.message}` });
  process.exit(0);
});
child.on('exit', (code, signal) => {
  kill();
  clearTimeout(timer);
  void infoRead
    .then(() => untilGone(jailPid()))
    .then(() => {
      writeJson('status.json', { exitCode: code, signal: signal ?? (killed ? 'SIGKILL' : null), timedOut });
      process.exit(0);
    });
});
