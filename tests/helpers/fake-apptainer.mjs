#!/usr/bin/env node
// A FAKE `apptainer` binary for tests (Apptainer is not installable here): the CLI subset the apptainer
// provider calls — `instance start|list --json|stop` and `exec instance://NAME` — with Apptainer's argument
// syntax, instance files, JSON shape, messages and exit codes (255 on FATAL). An "instance" is a process
// holding its binds; `exec` runs the command under bubblewrap with those binds over the host's system
// folders (read-only), no network for `--net --network none`. Every argv is appended to $FAKE_APPTAINER_LOG.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
if (process.env.FAKE_APPTAINER_LOG) appendFileSync(process.env.FAKE_APPTAINER_LOG, `${JSON.stringify(argv)}\n`);

function fatal(message) {
  process.stderr.write(`FATAL:   ${message}\n`);
  process.exit(255);
}

const user = os.userInfo().username;
// Where Apptainer keeps a user's instance files: ~/.apptainer/instances/app/<host>/<user>/<name>/<name>.json.
const instancesDir = path.join(os.homedir(), '.apptainer', 'instances', 'app', os.hostname(), user);
const fileOf = (name) => path.join(instancesDir, name, `${name}.json`);

/** The process group `pid` leads, or else the process alone. */
function killGroup(pid) {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
      return;
    } catch {
      // Not a group leader, or gone.
    }
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Live instances; like Apptainer, the files of exited ones are removed as they are listed. */
function instances() {
  if (!existsSync(instancesDir)) return [];
  return readdirSync(instancesDir).flatMap((name) => {
    const file = fileOf(name);
    if (!existsSync(file)) return [];
    const instance = JSON.parse(readFileSync(file, 'utf8'));
    if (alive(instance.pid)) return [instance];
    rmSync(path.dirname(file), { recursive: true, force: true });
    return [];
  });
}

/** Parses `[options] positionals…`, options ending at the first positional (as cobra's interspersed=false). */
function parse(args, valued) {
  const options = { bind: [] };
  let i = 0;
  for (; i < args.length && args[i].startsWith('-'); i++) {
    const [flag, inline] = args[i].split(/=(.*)/s);
    const key = flag.replace(/^--?/, '');
    if (!valued.has(key)) {
      options[key] = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) fatal(`flag needs an argument: ${flag}`);
    if (key === 'bind' || key === 'B') options.bind.push(...value.split(','));
    else options[key] = value;
  }
  return { options, rest: args.slice(i) };
}

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc'];
const NAME = /^[a-zA-Z0-9._-]+$/;

function start(args) {
  const { options, rest } = parse(args, new Set(['bind', 'B', 'network', 'cpus', 'memory', 'pids-limit', 'env-file', 'env']));
  const [image, name] = rest;
  if (!image || !name) fatal('Invalid command, expected 2 arguments: image path and instance name');
  if (!NAME.test(name)) fatal(`${name} is not a valid instance name`);
  if (!/^[a-z]+:\/\//.test(image) && !existsSync(image))
    fatal(`could not open image ${path.resolve(image)}: failed to retrieve path for ${image}: lstat ${path.resolve(image)}: no such file or directory`);
  if (instances().some((i) => i.name === name)) fatal(`instance ${name} already exists`);
  const binds = options.bind.map((spec) => {
    const [src, dest = src, mode = 'rw'] = spec.split(':');
    if (!existsSync(src)) fatal(`container creation failed: mount hook function failure: mount ${src}->${dest} error: while mounting ${src}: mount source ${src} doesn't exist`);
    return { src, dest, readOnly: mode === 'ro' };
  });
  // The instance's own process: it lives until `instance stop`.
  const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore' });
  holder.unref();
  mkdirSync(path.dirname(fileOf(name)), { recursive: true });
  const logBase = path.join(os.homedir(), '.apptainer', 'instances', 'logs', os.hostname(), user, name);
  writeFileSync(
    fileOf(name),
    JSON.stringify({
      pid: holder.pid,
      ppid: process.pid,
      name,
      user,
      image: path.resolve(image),
      binds,
      network: options.net ? (options.network ?? 'bridge') : 'host',
      logErrPath: `${logBase}.err`,
      logOutPath: `${logBase}.out`,
    }),
  );
  process.stderr.write('INFO:    instance started successfully\n');
}

function list(args) {
  const { options, rest } = parse(args, new Set(['user', 'u']));
  const pattern = rest[0] ? new RegExp(`^${rest[0].replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`) : /.*/;
  const found = instances().filter((i) => pattern.test(i.name));
  if (!options.json && !options.j) {
    process.stdout.write(`INSTANCE NAME    PID    IP    IMAGE\n${found.map((i) => `${i.name}    ${i.pid}        ${i.image}\n`).join('')}`);
    return;
  }
  const listing = { instances: found.map((i) => ({ instance: i.name, pid: i.pid, img: i.image, ip: '', logErrPath: i.logErrPath, logOutPath: i.logOutPath })) };
  process.stdout.write(`${JSON.stringify(listing, null, '\t')}\n`);
}

function stop(args) {
  const { rest } = parse(args, new Set(['signal', 's', 'timeout', 't', 'user', 'u']));
  const found = instances().filter((i) => i.name === rest[0]);
  if (found.length === 0) fatal('no instance found');
  for (const i of found) {
    process.stderr.write(`INFO:    Stopping ${i.name} instance of ${i.image} (PID=${i.pid})\n`);
    // Gone first, so an exec registering from now on sees that and starts nothing; then every registered
    // exec's process group (the exec leads one, its bwrap is in it): a group kill cannot be outrun by a
    // bwrap still starting, where a kill of the exec alone orphans one that has not set its death signal.
    rmSync(fileOf(i.name), { force: true });
    const execs = path.join(path.dirname(fileOf(i.name)), 'execs');
    for (const pid of existsSync(execs) ? readdirSync(execs) : []) killGroup(Number(pid));
    process.kill(i.pid, 'SIGKILL');
    rmSync(path.dirname(fileOf(i.name)), { recursive: true, force: true });
  }
}

/** The environment an env file gives, read by a shell as Apptainer's own interpreter reads it. */
function envFile(file) {
  const out = spawnSync('sh', ['-c', 'set -a; . "$0"; env -0', file], { env: {}, encoding: 'utf8' });
  if (out.status !== 0) fatal(`while processing ${file}: ${out.stderr.trim()}`);
  return Object.fromEntries(
    out.stdout
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

function exec(args) {
  const { options, rest } = parse(args, new Set(['env-file', 'pwd', 'bind', 'B', 'env']));
  const [target, ...command] = rest;
  if (!target?.startsWith('instance://')) fatal(`could not open image ${target}: only instance:// targets are faked`);
  const name = target.slice('instance://'.length);
  const instance = instances().find((i) => i.name === name);
  if (!instance) fatal(`no instance found with name ${name}`);
  if (command.length === 0) fatal('exec requires a command');
  // A pid namespace per exec, so ending the exec (or its instance) ends all it started, as the instance's
  // own pid namespace does under --containall.
  const jail = ['--die-with-parent', '--unshare-pid', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/root'];
  for (const dir of SYSTEM) if (existsSync(dir)) jail.push('--ro-bind', dir, dir);
  for (const b of instance.binds) jail.push(b.readOnly ? '--ro-bind' : '--bind', b.src, b.dest);
  if (instance.network === 'none') jail.push('--unshare-net');
  jail.push('--chdir', options.pwd ?? '/', '--', ...command);
  // --containall: nothing of the caller's environment, only Apptainer's defaults and the env file's.
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', ...(options['env-file'] ? envFile(options['env-file']) : {}) };
  // Registered with the instance before anything starts, and started only if the instance is still there
  // after that, so `instance stop` ends it whenever the two meet.
  const execs = path.join(path.dirname(fileOf(name)), 'execs');
  const entry = path.join(execs, String(process.pid));
  mkdirSync(execs, { recursive: true });
  writeFileSync(entry, '');
  if (!existsSync(fileOf(name))) {
    // Only its own entry: a stop under way may not yet have read the others'.
    rmSync(entry, { force: true });
    fatal(`no instance found with name ${name}`);
  }
  const child = spawn('bwrap', jail, { env, stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill('SIGKILL'));
  child.on('error', (e) => fatal(`bwrap: ${e.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + os.constants.signals[signal]));
}

const [group, sub, ...rest] = argv;
if (group === 'instance' && sub === 'start') start(rest);
else if (group === 'instance' && sub === 'list') list(rest);
else if (group === 'instance' && sub === 'stop') stop(rest);
else if (group === 'exec') exec([sub, ...rest].filter((a) => a !== undefined));
else fatal(`unknown command ${JSON.stringify(argv.join(' '))}: this fake implements instance start|list|stop and exec only`);
