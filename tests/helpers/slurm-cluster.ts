// A real single-node Slurm for a test file: munged, slurmctld and slurmd (Debian's slurm-wlm) started in
// the foreground with a generated slurm.conf in a temporary folder, and everything they ran stopped after.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { releasePort, reservePort } from './ports';

const run = promisify(execFile);

const BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scontrol', 'scancel', 'sinfo'];
const SETUP = 'bash scripts/setup-slurm.sh';

export interface SlurmCluster {
  dir: string;
  /** What a process needs to talk to this cluster (sbatch, squeue…): SLURM_CONF. */
  env: Record<string, string>;
  /** squeue's view: job id → state (PENDING, RUNNING, COMPLETING…); finished jobs are not listed. */
  jobs(): Promise<Map<string, string>>;
  /** A job's state from the controller (COMPLETED, TIMEOUT…), whether or not squeue still lists it. */
  jobState(id: string): Promise<string | undefined>;
  command(cmd: string, args: string[]): Promise<string>;
  /** The daemons' log tails, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/** The daemons live in /usr/sbin, which a non-login shell's PATH may leave out. */
const SEARCH = [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/sbin'];
const which = (bin: string) => SEARCH.map((d) => path.join(d, bin)).find((f) => existsSync(f));

/** Fails naming the setup script when Slurm is not installed: nothing is skipped silently. */
export function missingSlurm(): string | undefined {
  const missing = BINARIES.filter((b) => !which(b));
  return missing.length ? `Slurm is not installed (${missing.join(', ')} missing): run ${SETUP}` : undefined;
}

/** The node line slurmd itself reports (CPUs, sockets, cores, memory), renamed to localhost. */
async function nodeLine(): Promise<string> {
  const { stdout } = await run(which('slurmd')!, ['-C']);
  const line = stdout.split('\n').find((l) => l.startsWith('NodeName='));
  if (!line) throw new Error(`slurmd -C printed no node line: ${stdout}`);
  return line.replace(/^NodeName=\S+/, 'NodeName=localhost NodeHostname=localhost');
}

async function until(what: string, ms: number, check: () => Promise<boolean>, detail: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} within ${ms / 1000} s\n${detail()}`);
}

/** Processes whose environment names this cluster's configuration: the daemons' children and every job's processes. */
function processesOf(conf: string): number[] {
  const marker = `SLURM_CONF=${conf}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return pids;
}

/** SIGTERM, then SIGKILL if it is still there 10 s later; resolves once it has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startSlurmCluster(): Promise<SlurmCluster> {
  const missing = missingSlurm();
  if (missing) throw new Error(missing);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-slurm-'));
  // munged wants its socket folder reachable by all, and refuses a world-writable one without --force.
  await chmod(dir, 0o755);
  for (const sub of ['munge', 'spool', 'state', 'log']) await mkdir(path.join(dir, sub), { mode: 0o755 });
  const key = path.join(dir, 'munge', 'munge.key');
  await writeFile(key, randomBytes(1024), { mode: 0o400 });
  const socket = path.join(dir, 'munge', 'munge.sock');
  const conf = path.join(dir, 'slurm.conf');
  const ports = [await reservePort(), await reservePort()];
  const [ctldPort, slurmdPort] = ports as [number, number];
  await writeFile(
    conf,
    [
      'ClusterName=gymflowtest',
      'SlurmctldHost=localhost',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${socket}`,
      `StateSaveLocation=${dir}/state`,
      `SlurmdSpoolDir=${dir}/spool`,
      `SlurmctldPidFile=${dir}/slurmctld.pid`,
      `SlurmdPidFile=${dir}/slurmd.pid`,
      `SlurmctldLogFile=${dir}/log/slurmctld.log`,
      `SlurmdLogFile=${dir}/log/slurmd.log`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'SchedulerType=sched/builtin',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      'JobCompType=jobcomp/none',
      'MpiDefault=none',
      'ReturnToService=2',
      // A cancelled or timed-out job's processes get SIGKILL this long after SIGTERM.
      'KillWait=10',
      'MinJobAge=600',
      await nodeLine(),
      'PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES',
      '',
    ].join('\n'),
  );
  const env = { SLURM_CONF: conf };
  const children: ChildProcess[] = [];
  const daemon = (cmd: string, args: string[], log: string) => {
    const out = openSync(path.join(dir, 'log', log), 'a');
    const child = spawn(which(cmd)!, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
    children.push(child);
    return child;
  };
  const tail = (file: string) => {
    try {
      return readFileSync(path.join(dir, 'log', file), 'utf8')
        .split('\n')
        .slice(-15)
        .join('\n');
    } catch {
      return '(no log)';
    }
  };
  const logs = () => ['munged.log', 'slurmctld.log', 'slurmd.log', 'slurmctld.out', 'slurmd.out'].map((f) => `--- ${f}\n${tail(f)}`).join('\n');
  const command = async (cmd: string, args: string[]) => (await run(cmd, args, { env: { ...process.env, ...env }, timeout: 30_000 })).stdout;

  const stop = async () => {
    // Jobs first, so that no step outlives its daemons; then every process that still names this cluster.
    await command('scancel', ['--full', '--user=root']).catch(() => '');
    await until(
      'jobs ended',
      30_000,
      async () => (await command('squeue', ['-h', '-o', '%i'])).trim() === '',
      () => '',
    ).catch(() => {});
    await Promise.all(children.reverse().map(stopChild));
    for (const pid of processesOf(conf)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const p of ports) releasePort(p);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    daemon(
      'munged',
      ['--foreground', '--force', `--key-file=${key}`, `--socket=${socket}`, `--pid-file=${dir}/munge/munged.pid`, `--log-file=${dir}/log/munged.log`, `--seed-file=${dir}/munge/seed`],
      'munged.out',
    );
    await until('munged listening', 20_000, async () => existsSync(socket), logs);
    daemon('slurmctld', ['-D', '-f', conf], 'slurmctld.out');
    await until('slurmctld answering', 30_000, async () => (await command('scontrol', ['ping'])).includes('UP'), logs);
    daemon('slurmd', ['-D', '-f', conf, '-N', 'localhost'], 'slurmd.out');
    await until('node localhost idle', 60_000, async () => /idle/.test(await command('sinfo', ['-h', '-n', 'localhost', '-o', '%T'])), logs);
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    dir,
    env,
    async jobs() {
      const out = await command('squeue', ['-h', '-o', '%i %T']);
      return new Map(
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => l.trim().split(/\s+/) as [string, string]),
      );
    },
    async jobState(id) {
      const out = await command('scontrol', ['show', 'job', id, '-o']).catch(() => '');
      return /JobState=(\S+)/.exec(out)?.[1];
    },
    command,
    logs,
    stop,
  };
}
